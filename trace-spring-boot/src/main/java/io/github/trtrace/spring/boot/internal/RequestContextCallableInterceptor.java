package io.github.trtrace.spring.boot.internal;

import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.http.TracedRequest;
import io.github.trtrace.http.internal.RequestTracing;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.async.CallableProcessingInterceptor;

/**
 * Makes the request's context (decided by the servlet filter) current on the thread that runs a Spring MVC
 * handler's {@code Callable}, from just before it is called until just after (Spring calls both on that thread,
 * whether the callable returns or throws).
 */
public final class RequestContextCallableInterceptor implements CallableProcessingInterceptor {
  private static final String SCOPE = RequestContextCallableInterceptor.class.getName() + ".scope";

  @Override
  public <T> void preProcess(NativeWebRequest request, Callable<T> task) {
    Object r = request.getAttribute(RequestTracing.ATTRIBUTE, RequestAttributes.SCOPE_REQUEST);
    if (r instanceof TracedRequest traced) {
      request.setAttribute(SCOPE, traced.context().open(), RequestAttributes.SCOPE_REQUEST);
    }
  }

  @Override
  public <T> void postProcess(NativeWebRequest request, Callable<T> task, @Nullable Object result) {
    Object s = request.getAttribute(SCOPE, RequestAttributes.SCOPE_REQUEST);
    if (s instanceof RequestContext.Scope scope) {
      request.removeAttribute(SCOPE, RequestAttributes.SCOPE_REQUEST);
      scope.close();
    }
  }
}
