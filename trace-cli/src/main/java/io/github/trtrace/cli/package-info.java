/**
 * The {@code trtrace} command line: {@code find}, {@code stats}, {@code report}, {@code build-diff}
 * and {@code gate} over trtrace JSON Lines logs and build reports. See {@link io.github.trtrace.cli.TrtraceCli}.
 */
@NullMarked
package io.github.trtrace.cli;

import org.jspecify.annotations.NullMarked;
