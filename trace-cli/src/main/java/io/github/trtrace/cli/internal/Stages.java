package io.github.trtrace.cli.internal;

import io.github.trtrace.core.Stage;

/** The record's stages in order, named by their record fields without {@code _ms}. */
final class Stages {
  static final int COUNT = Stage.values().length;
  static final String[] NAMES = new String[COUNT];
  static final String[] FIELDS = new String[COUNT];

  static {
    Stage[] all = Stage.values();
    for (int i = 0; i < all.length; i++) {
      FIELDS[i] = all[i].field();
      NAMES[i] = FIELDS[i].substring(0, FIELDS[i].length() - 3);
    }
  }

  private Stages() {}

  /** Index of the stage that took longest in {@code r}, or -1 when no stage is known. */
  static int dominant(Rec r) {
    int best = -1;
    double bestMs = -1;
    for (int i = 0; i < COUNT; i++) {
      double v = r.stageMs[i];
      if (v > bestMs) {
        bestMs = v;
        best = i;
      }
    }
    return best;
  }
}
