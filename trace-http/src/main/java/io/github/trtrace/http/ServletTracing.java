package io.github.trtrace.http;

import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.context.RequestIds;
import io.github.trtrace.core.context.TraceParent;
import io.github.trtrace.http.internal.RequestTracing;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * trtrace for Jakarta Servlet containers (Servlet 6: Jetty 12 ee10, Tomcat 10.1+): a filter that accepts
 * or generates the request ID, echoes it in {@value RequestIds#HEADER}, parses {@code traceparent} (once: the record and, with
 * trace-otel, the request span both take it from the context) and runs
 * the rest of the chain with the request's {@link RequestContext} current (SLF4J MDC {@code request_id}).
 *
 * <pre>{@code
 * servletContext.addFilter("trtrace", ServletTracing.filter()).addMappingForUrlPatterns(null, false, "/*");
 * // in a servlet:
 * TracedRequest r = ServletTracing.request(req);
 * try (InferenceTrace t = r.startTrace(tracer, "llama-8b")) { ... }
 * // overloaded:
 * ServletTracing.reject(req, resp, tracer, "llama-8b", 503);
 * }</pre>
 *
 * <p>In {@code web.xml} declare {@code io.github.trtrace.http.ServletTracing$TracingFilter}.
 */
public final class ServletTracing {
  private ServletTracing() {}

  /** A new filter. */
  public static Filter filter() {
    return new TracingFilter();
  }

  /**
   * The request as the filter decided it. Without the filter the request is decided now, but its ID is not
   * echoed and no context is made current.
   */
  public static TracedRequest request(HttpServletRequest request) {
    Object r = request.getAttribute(RequestTracing.ATTRIBUTE);
    return r instanceof TracedRequest t ? t : decide(request, null);
  }

  /**
   * Answers an overloaded request: writes its {@code rejected} record (with the request ID and attribute
   * {@code http_status}) and responds {@code httpStatus} with the {@value RequestIds#HEADER} header and a
   * JSON body {@code {"error":"service_unavailable","request_id":"..."}}. Anything the handler buffered but
   * did not send yet is discarded; when it already used {@link HttpServletResponse#getWriter()} the body goes
   * through that writer, in its charset (named in {@code Content-Type}). When the response is already committed (status and headers sent) only the record is
   * written and the response is left as it is: neither status, header nor body can be changed any more.
   *
   * @param httpStatus 429 or 503
   * @throws IllegalArgumentException for another status (nothing is recorded or sent then)
   * @throws IOException when the response cannot be written (the record is written anyway)
   */
  public static void reject(
      HttpServletRequest request, HttpServletResponse response, InferenceTracer tracer, String modelName,
      int httpStatus) throws IOException {
    RequestTracing.checkRejectStatus(httpStatus);
    TracedRequest r = request(request);
    byte[] body = RequestTracing.recordRejected(r, tracer, modelName, httpStatus);
    if (response.isCommitted()) {
      return;
    }
    response.resetBuffer();
    response.setStatus(httpStatus);
    response.setHeader(RequestIds.HEADER, r.requestId());
    response.setContentType("application/json");
    ServletOutputStream out;
    try {
      out = response.getOutputStream();
    } catch (IllegalStateException writerInUse) {
      // The writer encodes in the charset the handler chose (UTF-16: two bytes a char), which can no longer
      // change: the length is the container's to count (-1: unset, also a length the handler set).
      response.setContentLength(-1);
      PrintWriter w = response.getWriter();
      // Named: JSON without a charset is read as UTF-8, and a type set after getWriter loses it.
      response.setHeader("Content-Type", "application/json;charset=" + response.getCharacterEncoding());
      w.write(new String(body, StandardCharsets.US_ASCII));
      w.flush();
      return;
    }
    response.setContentLength(body.length);
    out.write(body);
  }

  private static TracedRequest decide(HttpServletRequest request, @Nullable HttpServletResponse response) {
    List<String> ids = Collections.list(request.getHeaders(RequestIds.HEADER));
    TracedRequest r = RequestTracing.accept(ids,
        RequestTracing.traceParent(Collections.list(request.getHeaders(TraceParent.HEADER))),
        RequestTracing.traceState(Collections.list(request.getHeaders(TraceParent.TRACESTATE_HEADER))));
    request.setAttribute(RequestTracing.ATTRIBUTE, r);
    if (response != null && !response.isCommitted()) {
      response.setHeader(RequestIds.HEADER, r.requestId());
    }
    return r;
  }

  /**
   * The servlet filter. Public with a no-argument constructor so containers can create it from
   * {@code web.xml}; code should call {@link ServletTracing#filter()}. An asynchronous or error dispatch of
   * the same request keeps the ID decided first.
   */
  public static final class TracingFilter implements Filter {
    /** For containers; use {@link ServletTracing#filter()}. */
    public TracingFilter() {}

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
        throws IOException, ServletException {
      if (!(request instanceof HttpServletRequest req) || !(response instanceof HttpServletResponse resp)) {
        chain.doFilter(request, response);
        return;
      }
      Object known = req.getAttribute(RequestTracing.ATTRIBUTE);
      TracedRequest r = known instanceof TracedRequest t ? t : decide(req, resp);
      try (RequestContext.Scope s = r.context().open()) {
        chain.doFilter(request, response);
      }
    }
  }
}
