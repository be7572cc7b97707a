package io.github.trtrace.cli.internal;

import java.io.PrintStream;

/** A command that writes to the streams it is given (so tests can capture them). */
public interface Streams {
  /** Sets the output and error streams. */
  void streams(PrintStream out, PrintStream err);
}
