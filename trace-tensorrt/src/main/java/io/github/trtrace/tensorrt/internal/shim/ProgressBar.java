package io.github.trtrace.tensorrt.internal.shim;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Turns drained {@link ProgressEvent}s into a one-line console progress bar, e.g.
 * {@code [#########...........]  45% Building engine 2/4 > Tactic selection 3/10}. The percentage nests:
 * a phase's progress counts its completed steps plus the fraction of its active child phase.
 * Pure Java; not thread-safe (feed and render it from one thread).
 *
 * <pre>{@code
 * ProgressBar bar = ProgressBar.create(20);
 * monitor.drain().forEach(bar::accept);
 * System.err.print("\r" + bar.render());
 * }</pre>
 */
public final class ProgressBar {
  private final int width;
  private final Map<String, Phase> active = new LinkedHashMap<>();
  private @Nullable String lastRoot;
  private boolean lastRootFinished;

  private static final class Phase {
    final String name;
    final @Nullable String parent;
    final int nbSteps;
    int completed;

    Phase(String name, @Nullable String parent, int nbSteps) {
      this.name = name;
      this.parent = parent;
      this.nbSteps = nbSteps;
    }
  }

  private ProgressBar(int width) {
    this.width = width;
  }

  /** A bar {@code width} characters wide between the brackets. */
  public static ProgressBar create(int width) {
    if (width < 1 || width > 500) {
      throw new IllegalArgumentException("width must be in 1..500: " + width);
    }
    return new ProgressBar(width);
  }

  /** Applies one event. Events for unknown phases are ignored. */
  public void accept(ProgressEvent event) {
    switch (event.type()) {
      case PHASE_START -> {
        String parent = event.parentPhase();
        active.put(event.phaseName(), new Phase(event.phaseName(), parent, Math.max(0, event.steps())));
        if (parent == null || !active.containsKey(parent)) {
          lastRoot = event.phaseName();
          lastRootFinished = false;
        }
      }
      case STEP_COMPLETE -> {
        Phase p = active.get(event.phaseName());
        if (p != null) {
          p.completed = Math.min(p.nbSteps, Math.max(p.completed, event.steps() + 1));
        }
      }
      case PHASE_FINISH -> {
        active.remove(event.phaseName());
        active.values().removeIf(p -> event.phaseName().equals(p.parent));
        if (event.phaseName().equals(lastRoot)) {
          lastRootFinished = true;
        }
      }
    }
  }

  /** Applies events in order. */
  public void acceptAll(List<ProgressEvent> events) {
    for (ProgressEvent e : events) {
      accept(e);
    }
  }

  /** Progress of the top-level phase, 0..1 (1 once it finished, 0 before any phase started). */
  public double fraction() {
    if (lastRoot == null) {
      return 0;
    }
    if (lastRootFinished) {
      return 1;
    }
    Phase root = active.get(lastRoot);
    return root == null ? 0 : fraction(root);
  }

  /** The bar, percentage and the chain of active phases with their steps, on one line. */
  public String render() {
    double f = fraction();
    int filled = (int) Math.floor(f * width);
    StringBuilder sb = new StringBuilder(width + 64);
    sb.append('[');
    for (int i = 0; i < width; i++) {
      sb.append(i < filled ? '#' : '.');
    }
    sb.append("] ").append(String.format(Locale.ROOT, "%3d%%", (int) Math.floor(f * 100)));
    if (lastRoot == null) {
      return sb.append(" waiting for TensorRT").toString();
    }
    if (lastRootFinished) {
      return sb.append(' ').append(lastRoot).append(" done").toString();
    }
    List<Phase> chain = chain();
    String sep = " ";
    for (Phase p : chain) {
      sb.append(sep).append(p.name).append(' ').append(p.completed).append('/').append(p.nbSteps);
      sep = " > ";
    }
    return sb.toString();
  }

  private double fraction(Phase phase) {
    if (phase.nbSteps == 0) {
      return 0;
    }
    double done = phase.completed;
    Phase child = activeChild(phase);
    if (child != null && phase.completed < phase.nbSteps) {
      done += fraction(child);
    }
    return Math.min(1, done / phase.nbSteps);
  }

  private @Nullable Phase activeChild(Phase phase) {
    Phase last = null;
    for (Phase p : active.values()) {
      if (phase.name.equals(p.parent)) {
        last = p;
      }
    }
    return last;
  }

  private List<Phase> chain() {
    List<Phase> out = new ArrayList<>();
    Phase p = lastRoot == null ? null : active.get(lastRoot);
    while (p != null && out.size() < 16) {
      out.add(p);
      p = activeChild(p);
    }
    return out;
  }
}
