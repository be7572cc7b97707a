/** Implementation shared by the HTTP filters; may change without notice. */
@NullMarked
package io.github.trtrace.http.internal;

import org.jspecify.annotations.NullMarked;
