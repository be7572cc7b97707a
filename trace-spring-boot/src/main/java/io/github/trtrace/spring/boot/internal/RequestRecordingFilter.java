package io.github.trtrace.spring.boot.internal;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.Status;
import io.github.trtrace.core.TraceScope;
import io.github.trtrace.http.ServletTracing;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.function.Supplier;

/**
 * {@code trtrace.web.record-requests}: one record per HTTP request, for applications that trace nothing
 * themselves. The trace spans the whole request (an asynchronous one until its async context completes), is
 * current for the handler, and ends with attribute {@code http_status}; a 5xx answer or an exception is an
 * error ({@code error_type} {@code http_5xx} or the exception's class), an async timeout a timeout.
 */
public final class RequestRecordingFilter implements Filter {
  private final Supplier<InferenceTracer> tracer;
  private final String modelName;

  public RequestRecordingFilter(Supplier<InferenceTracer> tracer, String modelName) {
    this.tracer = tracer;
    this.modelName = modelName;
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    if (!(request instanceof HttpServletRequest req) || !(response instanceof HttpServletResponse resp)) {
      chain.doFilter(request, response);
      return;
    }
    InferenceTrace t = ServletTracing.request(req).startTrace(tracer.get(), modelName);
    try (TraceScope s = t.makeCurrent()) {
      chain.doFilter(request, response);
    } catch (IOException | ServletException | RuntimeException | Error e) {
      t.error(e);
      t.close();
      throw e;
    }
    if (req.isAsyncStarted()) {
      req.getAsyncContext().addListener(new AsyncListener() {
        @Override
        public void onComplete(AsyncEvent event) {
          end(t, resp.getStatus());
        }

        @Override
        public void onTimeout(AsyncEvent event) {
          t.status(Status.TIMEOUT);
          end(t, resp.getStatus());
        }

        @Override
        public void onError(AsyncEvent event) {
          if (event.getThrowable() != null) {
            t.error(event.getThrowable());
          }
          end(t, resp.getStatus());
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
          event.getAsyncContext().addListener(this);
        }
      });
    } else {
      end(t, resp.getStatus());
    }
  }

  private static void end(InferenceTrace t, int status) {
    t.attribute("http_status", Integer.toString(status));
    if (status >= 500) {
      t.error("http_" + status);
    }
    t.close();
  }
}
