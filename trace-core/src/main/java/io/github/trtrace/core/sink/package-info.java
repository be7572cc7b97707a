/** Record sinks: JSON Lines files, SLF4J, in-memory; the {@link io.github.trtrace.core.sink.RecordSink} SPI. */
@NullMarked
package io.github.trtrace.core.sink;

import org.jspecify.annotations.NullMarked;
