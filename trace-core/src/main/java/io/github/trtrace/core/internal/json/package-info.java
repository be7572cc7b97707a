/** The record's JSON form: the streaming writer and the record encoder. Not public API: may change in any release. */
@NullMarked
package io.github.trtrace.core.internal.json;

import org.jspecify.annotations.NullMarked;
