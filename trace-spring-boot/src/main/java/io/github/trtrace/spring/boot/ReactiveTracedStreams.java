package io.github.trtrace.spring.boot;

import io.github.trtrace.core.InferenceTrace;
import java.util.function.ToIntFunction;
import reactor.core.publisher.Flux;

/**
 * {@link TracedStream} for a WebFlux answer: the trace stays open while the {@code Flux} streams. A chunk
 * counts as sent when it is handed to the server's writer (WebFlux writes and flushes each server-sent event
 * as it comes); a client that disconnects cancels the {@code Flux}
 * and the record says {@code cancelled} with the tokens sent so far.
 *
 * <pre>{@code
 * @PostMapping(path = "/v1/chat/completions", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
 * Flux<ServerSentEvent<String>> stream(ServerWebExchange exchange) {
 *   InferenceTrace t = TrtraceWebFilter.request(exchange).startTrace(tracer, "llama-8b");
 *   return ReactiveTracedStreams.trace(engine.tokens(prompt).map(tok -> ServerSentEvent.of(tok)), t, e -> 1);
 * }
 * }</pre>
 */
public final class ReactiveTracedStreams {
  private ReactiveTracedStreams() {}

  /** {@code chunks} traced by {@code trace}, which ends with the stream; {@code tokens} counts each chunk's tokens. */
  public static <T> Flux<T> trace(Flux<T> chunks, InferenceTrace trace, ToIntFunction<? super T> tokens) {
    return Flux.defer(() -> {
      TracedStream stream = TracedStream.of(trace);
      return chunks
          .doOnNext(chunk -> stream.sent(tokens.applyAsInt(chunk)))
          // doOnComplete/doOnError run before the signal goes downstream, so the stream has ended before the
          // writer can cancel while handling the completion (Reactor Netty's send may); doFinally ran after it,
          // and such a cancel made a fully sent answer read "cancelled". The first end counts.
          .doOnComplete(stream::complete)
          .doOnError(stream::failed)
          .doOnCancel(stream::cancelled);
    });
  }
}
