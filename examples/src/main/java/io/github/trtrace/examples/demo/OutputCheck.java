package io.github.trtrace.examples.demo;

import io.github.trtrace.core.InferenceTrace;

/**
 * The production-style output check: hands the generated text to the trace, which marks {@code output_flags}
 * (replacement characters, repeated spans, bidirectional controls, empty output) on the record.
 */
final class OutputCheck {
  private OutputCheck() {}

  static void apply(InferenceTrace t, String output) {
    // HOOK(core-api): t.output(output) once the core API with output flags is merged into this branch.
  }
}
