package io.github.trtrace.tensorrt.internal.shim;

import org.bytedeco.javacpp.Pointer;

/** Wraps a native address in a JavaCPP {@link Pointer} without taking ownership (no deallocator). */
final class ShimPointers {
  private ShimPointers() {}

  static Pointer at(long nativeAddress) {
    // the parameter must not be named "address": inside the subclass that name is Pointer's field
    return new Pointer() {
      {
        this.address = nativeAddress;
      }
    };
  }
}
