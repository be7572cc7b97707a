/**
 * Implementation of the {@code trtrace} command line: streaming log reading, aggregation, the knee
 * detector, text/JSON/HTML rendering and the build-report rules. Not API; may change without notice.
 */
@NullMarked
package io.github.trtrace.cli.internal;

import org.jspecify.annotations.NullMarked;
