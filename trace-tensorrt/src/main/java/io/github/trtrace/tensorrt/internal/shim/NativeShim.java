package io.github.trtrace.tensorrt.internal.shim;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Loads {@code libtrtrace_shim.so} from the class path (extracted once into a temporary directory).
 * The shim is built for linux-x86_64 only. It does not link TensorRT: it loads without a GPU.
 *
 * <pre>{@code
 * NativeShim.load(); // idempotent, thread-safe; the shim classes call it themselves
 * }</pre>
 */
public final class NativeShim {
  static final String RESOURCE = "/native/linux-x86_64/libtrtrace_shim.so";

  private static final Object LOCK = new Object();
  private static volatile boolean loaded;
  private static @Nullable RuntimeException failure;

  private NativeShim() {}

  /**
   * Loads the shim once.
   *
   * @throws UnsupportedOperationException on a platform other than linux-x86_64
   * @throws IllegalStateException when the library is missing from the class path or cannot be loaded
   */
  public static void load() {
    if (loaded) {
      return;
    }
    synchronized (LOCK) {
      if (loaded) {
        return;
      }
      RuntimeException previous = failure;
      if (previous != null) {
        throw previous;
      }
      try {
        doLoad();
        loaded = true;
      } catch (RuntimeException e) {
        failure = e;
        throw e;
      }
    }
  }

  /** Whether this JVM runs on the one platform the shim is built for. */
  public static boolean isSupportedPlatform() {
    return unsupportedPlatformMessage(System.getProperty("os.name", "?"), System.getProperty("os.arch", "?"))
        == null;
  }

  /** The reason the shim cannot run on {@code os}/{@code arch}, or null when it can. */
  static @Nullable String unsupportedPlatformMessage(String os, String arch) {
    String o = os.toLowerCase(Locale.ROOT);
    String a = arch.toLowerCase(Locale.ROOT);
    if (o.startsWith("linux") && (a.equals("amd64") || a.equals("x86_64"))) {
      return null;
    }
    return "trtrace native shim is built for linux-x86_64 only; this is " + os + "/" + arch
        + ". TensorRT profiling, error recording and progress monitoring through the shim are unavailable here"
        + " (the ILogger bridge works on every platform).";
  }

  private static void doLoad() {
    String unsupported =
        unsupportedPlatformMessage(System.getProperty("os.name", "?"), System.getProperty("os.arch", "?"));
    if (unsupported != null) {
      throw new UnsupportedOperationException(unsupported);
    }
    try (InputStream in = NativeShim.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("trtrace native shim " + RESOURCE + " is missing from the class path:"
            + " the trace-tensorrt jar was built without it (it is compiled by g++ on linux-x86_64 during the"
            + " Maven compile phase)");
      }
      Path dir = Files.createTempDirectory("trtrace-shim");
      Path lib = dir.resolve("libtrtrace_shim.so");
      Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
      lib.toFile().deleteOnExit();
      dir.toFile().deleteOnExit();
      System.load(lib.toAbsolutePath().toString());
    } catch (IOException e) {
      throw new IllegalStateException("cannot extract the trtrace native shim to a temporary directory: " + e, e);
    } catch (UnsatisfiedLinkError e) {
      throw new IllegalStateException("cannot load the trtrace native shim: " + e.getMessage(), e);
    }
  }
}
