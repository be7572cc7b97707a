/**
 * Dependency-free JSON output: the streaming {@link io.github.trtrace.core.json.JsonWriter} and the
 * one-line encoding of an inference record, {@link io.github.trtrace.core.json.RecordJson}.
 */
@NullMarked
package io.github.trtrace.core.json;

import org.jspecify.annotations.NullMarked;
