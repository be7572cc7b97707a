package io.github.trtrace.tensorrt.internal.shim;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One call TensorRT made on a {@link ShimProgressMonitor} during an engine build.
 *
 * <pre>{@code
 * for (ProgressEvent e : monitor.drain()) bar.accept(e);
 * }</pre>
 *
 * @param type which {@code IProgressMonitor} method was called
 * @param phaseName the phase
 * @param parentPhase the enclosing phase ({@link Type#PHASE_START} only; null for a top-level phase)
 * @param steps for {@code PHASE_START} the phase's number of steps ({@code nbSteps}); for
 *     {@code STEP_COMPLETE} the step that completed (counted from 0); 0 for {@code PHASE_FINISH}
 * @param nanos when it was called, on the {@link System#nanoTime()} clock
 */
public record ProgressEvent(Type type, String phaseName, @Nullable String parentPhase, int steps, long nanos) {

  /** The {@code IProgressMonitor} method. */
  public enum Type {
    /** {@code phaseStart(phaseName, parentPhase, nbSteps)}. */
    PHASE_START,
    /** {@code stepComplete(phaseName, step)}. */
    STEP_COMPLETE,
    /** {@code phaseFinish(phaseName)}. */
    PHASE_FINISH
  }

  public ProgressEvent {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(phaseName, "phaseName");
  }
}
