package io.github.trtrace.spring.boot;

import io.github.trtrace.core.InferenceTrace;
import io.github.trtrace.core.Status;
import java.util.Objects;

/**
 * Keeps a request's trace open while its answer streams, and ends it with the outcome the client saw:
 * {@code ttft_ms} when the first chunk has been written to the client, {@code tpot_ms} the mean interval
 * between chunks, {@code output_tokens} the tokens sent, and {@code cancelled} (with the tokens sent so far)
 * when the client went away. Call {@link #sent(int)} after each chunk was written and flushed (for MVC's
 * {@code SseEmitter}, after {@code send} returned); for WebFlux use {@link ReactiveTracedStreams}.
 * Thread-safe: chunks may be sent from any thread, one at a time.
 *
 * <pre>{@code
 * SseEmitter emitter = new SseEmitter(0L);
 * TracedStream stream = TracedStream.of(ServletTracing.request(request).startTrace(tracer, "llama-8b"));
 * executor.execute(() -> {
 *   try {
 *     for (String token : engine.generate(prompt)) {
 *       emitter.send(SseEmitter.event().data(token));
 *       stream.sent(1);
 *     }
 *     emitter.complete();
 *     stream.complete();
 *   } catch (IOException clientGone) {
 *     stream.cancelled();                    // status cancelled, output_tokens = tokens sent
 *   } catch (RuntimeException e) {
 *     stream.failed(e);
 *     emitter.completeWithError(e);
 *   }
 * });
 * return emitter;
 * }</pre>
 */
public final class TracedStream {
  private final InferenceTrace trace;
  private int tokens;
  private boolean ended;

  private TracedStream(InferenceTrace trace) {
    this.trace = Objects.requireNonNull(trace, "trace");
  }

  /** Follows {@code trace}, which this stream ends. */
  public static TracedStream of(InferenceTrace trace) {
    return new TracedStream(trace);
  }

  /** The trace, e.g. to set the input token count or record stages. */
  public InferenceTrace trace() {
    return trace;
  }

  /**
   * A chunk carrying {@code tokens} output tokens was written to the client now (the first marks
   * {@code ttft_ms}; each marks one interval of {@code tpot_ms}).
   *
   * @throws IllegalArgumentException if {@code tokens} is negative
   */
  public synchronized void sent(int tokens) {
    if (tokens < 0) {
      throw new IllegalArgumentException("tokens must be >= 0: " + tokens);
    }
    if (ended) {
      return;
    }
    trace.token();
    this.tokens += tokens;
  }

  /** Tokens sent so far. */
  public synchronized int tokensSent() {
    return tokens;
  }

  /** The whole answer was sent: ends the trace as a success. Only the first end counts. */
  public void complete() {
    end(null, null);
  }

  /** The client went away: ends the trace as {@code cancelled} with the tokens sent so far. */
  public void cancelled() {
    end(Status.CANCELLED, null);
  }

  /** Generating or sending failed: records {@code error} and ends the trace. */
  public void failed(Throwable error) {
    end(null, Objects.requireNonNull(error, "error"));
  }

  private synchronized void end(Status status, Throwable error) {
    if (ended) {
      return;
    }
    ended = true;
    trace.outputTokens(tokens);
    if (status != null) {
      trace.status(status);
    }
    if (error != null) {
      trace.error(error);
    }
    trace.close();
  }
}
