/** GPU metrics SPI: a source of readings the tracer polls in the background and attaches to records. */
@NullMarked
package io.github.trtrace.core.gpu;

import org.jspecify.annotations.NullMarked;
