/** Logging helpers. Not public API: may change in any release. */
@NullMarked
package io.github.trtrace.core.internal.log;

import org.jspecify.annotations.NullMarked;
