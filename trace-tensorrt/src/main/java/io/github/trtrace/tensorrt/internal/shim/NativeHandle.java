package io.github.trtrace.tensorrt.internal.shim;

import java.util.concurrent.atomic.AtomicLong;

/** The address of one native shim object; zero once freed. Guards against use after close. */
final class NativeHandle {
  private final AtomicLong address;

  NativeHandle(long address, String what) {
    if (address == 0) {
      throw new OutOfMemoryError("cannot allocate the native " + what);
    }
    this.address = new AtomicLong(address);
  }

  /** The live address; throws when the object was closed. */
  long get(String what) {
    long a = address.get();
    if (a == 0) {
      throw new IllegalStateException(what + " is closed");
    }
    return a;
  }

  boolean isOpen() {
    return address.get() != 0;
  }

  /** Marks the handle freed and returns the address to free, or zero if it was already freed. */
  long take() {
    return address.getAndSet(0);
  }
}
