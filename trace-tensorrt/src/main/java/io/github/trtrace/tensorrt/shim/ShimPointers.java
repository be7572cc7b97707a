package io.github.trtrace.tensorrt.shim;

import org.bytedeco.javacpp.Pointer;

/** Wraps a native address in a JavaCPP {@link Pointer} without taking ownership (no deallocator). */
final class ShimPointers {
  private ShimPointers() {}

  static Pointer at(long address) {
    return new Pointer() {
      {
        this.address = address;
      }
    };
  }
}
