/** GPU metrics SPI and the background poller that attaches the latest reading to records. */
@NullMarked
package io.github.trtrace.core.gpu;

import org.jspecify.annotations.NullMarked;
