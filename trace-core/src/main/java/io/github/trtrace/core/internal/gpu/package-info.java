/** GPU metrics: the background poller and the per-request usage window. Not public API: may change in any release. */
@NullMarked
package io.github.trtrace.core.internal.gpu;

import org.jspecify.annotations.NullMarked;
