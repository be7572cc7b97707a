/** The dispatcher's counters, as {@link io.github.trtrace.core.TracerStats#dispatcher()} reports them. */
@NullMarked
package io.github.trtrace.core.dispatch;

import org.jspecify.annotations.NullMarked;
