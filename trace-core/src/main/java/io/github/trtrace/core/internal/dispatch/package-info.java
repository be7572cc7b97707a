/** The asynchronous dispatcher: a bounded hand-off from request threads to the sinks, with counted drops and a flush on close. Not public API: may change in any release. */
@NullMarked
package io.github.trtrace.core.internal.dispatch;

import org.jspecify.annotations.NullMarked;
