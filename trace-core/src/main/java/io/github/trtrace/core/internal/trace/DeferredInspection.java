package io.github.trtrace.core.internal.trace;

import io.github.trtrace.core.internal.inspect.InputInspector;
import io.github.trtrace.core.internal.inspect.OutputInspector;
import io.github.trtrace.core.redact.Redactor;
import org.jspecify.annotations.Nullable;

/**
 * One {@link RecordEntry}'s work on the raw input and output, deferred from the caller to whoever
 * builds the record ({@link #resolve}), the dispatcher's worker on the garbage-free path, within the
 * tracer's budget of deferred text ({@link RecordEntry.Pool#MAX_DEFERRED_CHARS}). Belongs to its entry
 * and has the same owner at a time.
 */
final class DeferredInspection {
  private final RecordEntry.Pool pool;
  /**
   * Only ever immutable {@code String}s (a mutable {@code CharSequence} is scanned, or snapshotted, on
   * the caller), never written anywhere, cleared once used and on {@link #release()}. {@code
   * flagsInput}: the input whose flags are still to be computed (threshold {@code veryLongChars});
   * {@code digestInput}: the input whose redacted digest is still to be computed with {@code
   * digestRedactor}; {@code flagsOutput}: the output whose flags are still to be computed.
   */
  private @Nullable String flagsInput;
  private @Nullable String flagsOutput;
  private int veryLongChars;
  private @Nullable String digestInput;
  private @Nullable Redactor digestRedactor;

  DeferredInspection(RecordEntry.Pool pool) {
    this.pool = pool;
  }

  /**
   * Computes what the caller deferred on the raw input (its flags, its redacted digest) and on the
   * output (its flags) into {@code e}, and forgets both texts. Runs where the record is built: on the worker for a handed-off entry, which is what
   * takes the scan and the redaction (the redactor's regular expressions over up to 8,192 characters)
   * off the request's thread. A redactor that throws (against its contract; a {@link
   * StackOverflowError} or {@link LinkageError} included) yields {@value RecordEntry#REDACTION_FAILED}, logged:
   * the record is written all the same, and the raw input never is.
   */
  void resolve(RecordEntry e) {
    String flagsOf = flagsInput;
    String output = flagsOutput;
    String digestOf = digestInput;
    Redactor redactor = digestRedactor;
    releaseDeferred();
    if (flagsOf != null) {
      e.inputFlags = InputInspector.flags(flagsOf, veryLongChars);
    }
    if (output != null) {
      e.outputFlags = OutputInspector.flags(output);
    }
    if (digestOf != null && redactor != null) {
      digestRedactor = null;
      e.inputDigest = digest(redactor, digestOf, e.requestId);
    }
  }

  private static String digest(Redactor redactor, String input, String requestId) {
    try {
      return redactor.digest(input);
    } catch (RuntimeException | StackOverflowError | LinkageError e) {
      // the user's code, on the dispatcher's worker: an error from it must not stop the worker
      // (which treats what escapes it as a broken JVM and writes nothing more)
      RecordEntry.LOG.warn("trtrace: the redactor failed on request {}: {}", requestId, e.toString());
      return RecordEntry.REDACTION_FAILED;
    }
  }

  /**
   * Leaves the flags of {@code input} to {@link #resolve} (the worker) when the tracer's budget of
   * deferred text allows it; false: the caller must inspect it now. See {@link RecordEntry.Pool#MAX_DEFERRED_CHARS}.
   */
  boolean deferInput(String input, int veryLong) {
    undeferInput();
    if (!pool.reserve(input.length())) {
      return false;
    }
    flagsInput = input;
    veryLongChars = veryLong;
    return true;
  }

  /** As {@link #deferInput} for the output's flags. */
  boolean deferOutput(String output) {
    undeferOutput();
    if (!pool.reserve(output.length())) {
      return false;
    }
    flagsOutput = output;
    return true;
  }

  /**
   * The redacted digest of {@code input}: left to {@link #resolve} when it is the text whose flags
   * are already deferred (the same string, no further share of the budget) or within the budget; past
   * the budget made now, so the queue does not keep the text.
   */
  void digestInput(String input, Redactor redactor, RecordEntry e) {
    if (input == flagsInput || pool.reserve(input.length())) {
      digestInput = input;
      digestRedactor = redactor;
    } else {
      e.inputDigest = digest(redactor, input, e.requestId);
    }
  }

  /** Forgets a deferred input (a later {@code input(...)} replaces it), giving its share back. */
  void undeferInput() {
    String earlier = flagsInput;
    if (earlier != null) {
      flagsInput = null;
      pool.give(earlier.length());
    }
  }

  /** As {@link #undeferInput} for the output. */
  void undeferOutput() {
    String earlier = flagsOutput;
    if (earlier != null) {
      flagsOutput = null;
      pool.give(earlier.length());
    }
  }

  /** Gives the deferred texts' share of the budget back and forgets them and the redactor. */
  void release() {
    releaseDeferred();
    digestRedactor = null;
  }

  private void releaseDeferred() {
    long chars = 0;
    if (flagsInput != null) {
      chars += flagsInput.length();
    }
    if (flagsOutput != null) {
      chars += flagsOutput.length();
    }
    if (digestInput != null && digestInput != flagsInput) { // the same string holds one share
      chars += digestInput.length();
    }
    flagsInput = null;
    flagsOutput = null;
    digestInput = null;
    if (chars > 0) {
      pool.give(chars);
    }
  }
}
