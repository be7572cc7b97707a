package io.github.trtrace.spring.boot;

import io.github.trtrace.core.context.RequestContext;
import io.github.trtrace.core.context.RequestIds;
import io.github.trtrace.core.context.TraceParent;
import io.github.trtrace.http.TracedRequest;
import io.github.trtrace.http.internal.RequestTracing;
import java.util.List;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * trtrace for WebFlux: accepts or generates {@code X-Request-ID}, echoes it, parses {@code traceparent} once
 * into the request's context (the record and trace-otel's span both take their parent from there), keeps
 * the {@link TracedRequest} as an exchange attribute, and puts the request's {@link RequestContext} into the
 * Reactor context under {@link #CONTEXT_KEY}. With Micrometer's context-propagation on the class path the
 * auto-configuration registers a {@code ThreadLocalAccessor} for that key, so with
 * {@code Hooks.enableAutomaticContextPropagation()} (or {@code spring.reactor.context-propagation=auto})
 * the context, and MDC {@code request_id}, are current on whatever thread runs the next operator.
 *
 * <pre>{@code
 * @GetMapping("/v1/models")
 * Mono<String> models(ServerWebExchange exchange) {
 *   TracedRequest r = TrtraceWebFilter.request(exchange);
 *   return Mono.fromCallable(() -> r.call(tracer, "llama-8b", t -> engine.generate(t, prompt)));
 * }
 * }</pre>
 */
public final class TrtraceWebFilter implements WebFilter, Ordered {
  /** The Reactor context key (and context-propagation accessor key) of the request's {@link RequestContext}. */
  public static final String CONTEXT_KEY = "trtrace.request.context";

  private final int order;

  /** A filter at {@code order}. */
  public TrtraceWebFilter(int order) {
    this.order = order;
  }

  /** The request as the filter decided it; decided now (no ID echoed) when the filter did not run. */
  public static TracedRequest request(ServerWebExchange exchange) {
    Object r = exchange.getAttribute(RequestTracing.ATTRIBUTE);
    return r instanceof TracedRequest t ? t : decide(exchange.getRequest().getHeaders());
  }

  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    TracedRequest r = decide(exchange.getRequest().getHeaders());
    exchange.getAttributes().put(RequestTracing.ATTRIBUTE, r);
    exchange.getResponse().getHeaders().set(RequestIds.HEADER, r.requestId());
    return chain.filter(exchange).contextWrite(c -> c.put(CONTEXT_KEY, r.context()));
  }

  private static TracedRequest decide(HttpHeaders headers) {
    // getFirst and getValuesAsList: methods of HttpHeaders in Spring Framework 6 and 7 alike (getOrEmpty and get
    // changed signature in 7, which this jar is compiled against, and fail on Boot 3.5). Several values are
    // ambiguous and rejected together, as by the servlet filter; getValuesAsList also splits a single value at
    // commas, which no valid ID contains, so only its count is used and a single value is judged as sent.
    List<String> values = headers.getValuesAsList(RequestIds.HEADER);
    String id = headers.getFirst(RequestIds.HEADER);
    List<String> ids = values.size() > 1 ? values : id == null ? List.of() : List.of(id);
    // two traceparent headers are ignored together and several tracestate headers joined in order, as by the
    // servlet filter and W3C Trace Context (a valid traceparent holds no comma; tracestate is a comma-separated
    // list, which getValuesAsList splits into its members and the join puts back in order)
    return RequestTracing.accept(ids, RequestTracing.traceParent(headers.getValuesAsList(TraceParent.HEADER)),
        RequestTracing.traceState(headers.getValuesAsList(TraceParent.TRACESTATE_HEADER)));
  }

  @Override
  public int getOrder() {
    return order;
  }
}
