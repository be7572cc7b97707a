/** Internal helpers shared by trtrace modules. Not public API: may change in any release. */
@NullMarked
package io.github.trtrace.core.internal;

import org.jspecify.annotations.NullMarked;
