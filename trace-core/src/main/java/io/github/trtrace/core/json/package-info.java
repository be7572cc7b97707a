/**
 * The one-line JSON encoding of an inference record, {@link io.github.trtrace.core.json.RecordJson}
 * (dependency-free; the streaming writer behind it is internal).
 */
@NullMarked
package io.github.trtrace.core.json;

import org.jspecify.annotations.NullMarked;
