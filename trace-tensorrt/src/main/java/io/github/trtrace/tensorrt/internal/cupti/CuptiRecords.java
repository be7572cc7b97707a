package io.github.trtrace.tensorrt.internal.cupti;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.cuda.cupti.CUpti_ActivityAPI;
import org.bytedeco.cuda.cupti.CUpti_ActivityExternalCorrelation;
import org.bytedeco.cuda.global.cupti;
import org.jspecify.annotations.Nullable;

/**
 * Copies CUPTI activity records into {@link ActivityRow}s. The record structs are versioned (the CUDA 12.6
 * preset binds {@code CUpti_ActivityKernel9} and {@code Memcpy5}, 13.1 {@code Kernel11} and {@code Memcpy6},
 * 13.3 {@code Kernel12}) while this module's sources are the same for every TensorRT line: the newest class the
 * preset on the class path has is found once and its getters (same names in every version) called through
 * method handles. CUPTI fills records of the version of its headers, which are the preset's.
 */
final class CuptiRecords {
  private static final MethodType LONG = MethodType.methodType(long.class, Pointer.class);
  private static final MethodType INT = MethodType.methodType(int.class, Pointer.class);

  private final Reader kernel;
  private final Reader memcpy;
  private final Reader memset;

  /** Getters of one record class, as handles taking the record as a {@link Pointer}. */
  private static final class Reader {
    final MethodHandle make;
    final MethodHandle start;
    final MethodHandle end;
    final MethodHandle correlationId;
    final @Nullable MethodHandle name;
    final @Nullable MethodHandle @Nullable [] dims;
    final @Nullable MethodHandle bytes;
    final @Nullable MethodHandle subKind;

    Reader(Class<?> c, boolean isKernel, @Nullable String subKindGetter) throws ReflectiveOperationException {
      MethodHandles.Lookup l = MethodHandles.publicLookup();
      make = l.findConstructor(c, MethodType.methodType(void.class, Pointer.class))
          .asType(MethodType.methodType(Pointer.class, Pointer.class));
      start = getter(l, c, "start", long.class, LONG);
      end = getter(l, c, "end", long.class, LONG);
      correlationId = getter(l, c, "correlationId", int.class, INT);
      if (isKernel) {
        name = l.findVirtual(c, "name", MethodType.methodType(BytePointer.class))
            .asType(MethodType.methodType(BytePointer.class, Pointer.class));
        String[] names = {"gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ"};
        dims = new MethodHandle[6];
        for (int i = 0; i < 6; i++) {
          dims[i] = getter(l, c, names[i], int.class, INT);
        }
        bytes = null;
        subKind = null;
      } else {
        name = null;
        dims = null;
        bytes = getter(l, c, "bytes", long.class, LONG);
        Class<?> type = c.getMethod(subKindGetter).getReturnType();
        subKind = l.findVirtual(c, subKindGetter, MethodType.methodType(type)).asType(MethodType.methodType(type, Pointer.class))
            .asType(MethodType.methodType(int.class, Pointer.class));
      }
    }

    private static MethodHandle getter(MethodHandles.Lookup l, Class<?> c, String name, Class<?> type, MethodType as)
        throws ReflectiveOperationException {
      return l.findVirtual(c, name, MethodType.methodType(type)).asType(as);
    }
  }

  CuptiRecords() throws ReflectiveOperationException {
    kernel = new Reader(newest("CUpti_ActivityKernel", 4, 16), true, null);
    memcpy = new Reader(newest("CUpti_ActivityMemcpy", 3, 10), false, "copyKind");
    memset = new Reader(newest("CUpti_ActivityMemset", 2, 8), false, "memoryKind");
  }

  /** The highest-numbered {@code prefix<N>} class of the cupti preset on the class path. */
  static Class<?> newest(String prefix, int low, int high) throws ClassNotFoundException {
    for (int v = high; v >= low; v--) {
      try {
        return Class.forName("org.bytedeco.cuda.cupti." + prefix + v, false, CuptiRecords.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        // not this version: try the one below
      }
    }
    throw new ClassNotFoundException("no org.bytedeco.cuda.cupti." + prefix + "<" + low + ".." + high + "> in the cuda preset");
  }

  /** The record at {@code record} (its kind already read) as a row; null for a kind not enabled here. */
  @Nullable ActivityRow read(int kind, Pointer record) throws Throwable {
    if (kind == cupti.CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || kind == cupti.CUPTI_ACTIVITY_KIND_KERNEL) {
      Reader r = kernel;
      Pointer p = (Pointer) r.make.invokeExact(record);
      MethodHandle[] d = r.dims;
      BytePointer name = (BytePointer) r.name.invokeExact(p);
      return ActivityRow.kernel((int) r.correlationId.invokeExact(p), (long) r.start.invokeExact(p),
          (long) r.end.invokeExact(p), name == null ? 0 : name.address(),
          (int) d[0].invokeExact(p), (int) d[1].invokeExact(p), (int) d[2].invokeExact(p),
          (int) d[3].invokeExact(p), (int) d[4].invokeExact(p), (int) d[5].invokeExact(p));
    }
    if (kind == cupti.CUPTI_ACTIVITY_KIND_MEMCPY || kind == cupti.CUPTI_ACTIVITY_KIND_MEMSET) {
      boolean copy = kind == cupti.CUPTI_ACTIVITY_KIND_MEMCPY;
      Reader r = copy ? memcpy : memset;
      Pointer p = (Pointer) r.make.invokeExact(record);
      int corr = (int) r.correlationId.invokeExact(p);
      long start = (long) r.start.invokeExact(p);
      long end = (long) r.end.invokeExact(p);
      int sub = (int) r.subKind.invokeExact(p);
      long bytes = (long) r.bytes.invokeExact(p);
      return copy ? ActivityRow.memcpy(corr, start, end, sub, bytes) : ActivityRow.memset(corr, start, end, sub, bytes);
    }
    if (kind == cupti.CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
      CUpti_ActivityExternalCorrelation e = new CUpti_ActivityExternalCorrelation(record);
      if (e.externalKind() != cupti.CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) {
        return null; // another library's external ids (CUSTOM0 is ours)
      }
      return ActivityRow.external(e.correlationId(), e.externalId());
    }
    if (kind == cupti.CUPTI_ACTIVITY_KIND_RUNTIME || kind == cupti.CUPTI_ACTIVITY_KIND_DRIVER) {
      CUpti_ActivityAPI a = new CUpti_ActivityAPI(record); // not versioned: the same struct in 12.6 and 13.x
      return ActivityRow.api(kind == cupti.CUPTI_ACTIVITY_KIND_DRIVER, a.correlationId(), a.cbid(), a.start(), a.end(),
          Integer.toUnsignedLong(a.threadId()));
    }
    return null;
  }

  /** The NUL-terminated string at {@code address} (a kernel name CUPTI owns). */
  static @Nullable String stringAt(long address) {
    if (address == 0) {
      return null;
    }
    return new At(address).getString();
  }

  /** A byte pointer at a raw address (JavaCPP keeps the address field protected). */
  private static final class At extends BytePointer {
    At(long address) {
      super((Pointer) null);
      this.address = address;
    }
  }
}
