package io.github.trtrace.core.internal.json;

import java.util.Arrays;

/**
 * The open containers of a streaming JSON writer and where separators go: shared by {@link JsonWriter}
 * (text) and {@link JsonBytes} (UTF-8), so both accept and reject the same call sequences. Each
 * method says whether the writer must put a comma before what comes next.
 */
final class JsonNesting {
  static final byte OBJECT = 1;
  static final byte ARRAY = 2;

  private byte[] kinds = new byte[8];
  private boolean[] nonEmpty = new boolean[8];
  private int depth;
  private boolean afterName;

  void reset() {
    depth = 0;
    afterName = false;
  }

  boolean isComplete() {
    return depth == 0 && !afterName;
  }

  /** Before a value (or a container) is written: whether a comma goes first. */
  boolean beforeValue() {
    if (afterName) {
      afterName = false;
      return false;
    }
    if (depth > 0) {
      if (kinds[depth - 1] == OBJECT) {
        throw new IllegalStateException("a value inside an object needs a name() first");
      }
      return separate();
    }
    return false;
  }

  /** Before a member name is written: whether a comma goes first; the next call must write its value. */
  boolean beforeName(String name) {
    if (depth == 0 || kinds[depth - 1] != OBJECT || afterName) {
      throw new IllegalStateException("name(\"" + name + "\") is only valid inside an object, before a value");
    }
    boolean comma = separate();
    afterName = true;
    return comma;
  }

  private boolean separate() {
    if (nonEmpty[depth - 1]) {
      return true;
    }
    nonEmpty[depth - 1] = true;
    return false;
  }

  void push(byte kind) {
    if (depth == kinds.length) {
      kinds = Arrays.copyOf(kinds, depth * 2);
      nonEmpty = Arrays.copyOf(nonEmpty, depth * 2);
    }
    kinds[depth] = kind;
    nonEmpty[depth] = false;
    depth++;
  }

  void pop(byte kind) {
    if (depth == 0 || kinds[depth - 1] != kind || afterName) {
      throw new IllegalStateException(
          (kind == OBJECT ? "endObject()" : "endArray()") + " does not match an open container");
    }
    depth--;
  }
}
