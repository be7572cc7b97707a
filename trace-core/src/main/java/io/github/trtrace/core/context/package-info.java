/**
 * Request context: one request ID carried from the gateway header to the GPU and back.
 *
 * <p>{@link io.github.trtrace.core.context.RequestIds} validates or generates IDs; {@link
 * io.github.trtrace.core.context.RequestContext} makes one current on the calling thread, mirrors it
 * into the SLF4J MDC ({@code request_id}, {@code model_name}) and carries it to executors and virtual
 * threads. The storage is a {@link java.lang.ThreadLocal}, or a {@code java.lang.ScopedValue} on Java 25+
 * (system property {@code trtrace.context.storage}).
 *
 * <pre>{@code
 * RequestIds.Accepted id = RequestIds.accept(request.getHeader(RequestIds.HEADER));
 * id.toContext().model("llama-8b").run(() -> handle(request));
 * }</pre>
 */
@NullMarked
package io.github.trtrace.core.context;

import org.jspecify.annotations.NullMarked;
