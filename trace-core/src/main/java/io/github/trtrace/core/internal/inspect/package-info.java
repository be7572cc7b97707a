/** The input and output inspectors behind the record's flags and input digest. Not public API: may change in any release. */
@NullMarked
package io.github.trtrace.core.internal.inspect;

import org.jspecify.annotations.NullMarked;
