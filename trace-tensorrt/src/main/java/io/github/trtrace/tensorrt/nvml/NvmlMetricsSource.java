package io.github.trtrace.tensorrt.nvml;

import static org.bytedeco.cuda.global.nvml.NVML_CLOCK_SM;
import static org.bytedeco.cuda.global.nvml.NVML_SUCCESS;
import static org.bytedeco.cuda.global.nvml.NVML_TEMPERATURE_GPU;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetClockInfo;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetCurrentClocksEventReasons;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetHandleByIndex_v2;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetMemoryInfo;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetName;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetTemperature;
import static org.bytedeco.cuda.global.nvml.nvmlDeviceGetUtilizationRates;
import static org.bytedeco.cuda.global.nvml.nvmlErrorString;
import static org.bytedeco.cuda.global.nvml.nvmlInit_v2;
import static org.bytedeco.cuda.global.nvml.nvmlShutdown;

import io.github.trtrace.core.gpu.GpuMetricsSource;
import io.github.trtrace.core.gpu.GpuMetricsSource;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.bytedeco.cuda.nvml.nvmlDevice_st;
import org.bytedeco.cuda.nvml.nvmlMemory_t;
import org.bytedeco.cuda.nvml.nvmlUtilization_t;
import org.bytedeco.javacpp.BytePointer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GPU utilisation, memory, temperature, SM clock and clock-event (throttle) reasons of one GPU, read
 * through NVML. Polled by trtrace's background poller, never on the request path. A value NVML does not
 * report on this GPU is {@code NaN}; a failed NVML call throws from {@link #read()} (the poller counts it).
 *
 * <pre>{@code
 * try (GpuMetricsSource gpu = NvmlMetricsSource.openOrNoop(0)) {
 *   GpuMetricsSource.Reading r = gpu.read();
 * }
 * }</pre>
 */
public final class NvmlMetricsSource implements GpuMetricsSource {
  private static final Logger LOG = LoggerFactory.getLogger(NvmlMetricsSource.class);
  private static final double MIB = 1024.0 * 1024.0;

  /** NVML's clocks-event reason bits (nvml.h) and the names reported for them. */
  private static final long[] REASON_BITS = {0x1L, 0x2L, 0x4L, 0x8L, 0x10L, 0x20L, 0x40L, 0x80L, 0x100L};

  private static final String[] REASON_NAMES = {
    "gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown", "sync_boost",
    "sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown", "display_clock_setting"
  };

  private final int index;
  private final String name;
  private final nvmlDevice_st device;
  private final nvmlUtilization_t util = new nvmlUtilization_t();
  private final nvmlMemory_t memory = new nvmlMemory_t();
  private final int[] value = new int[1];
  private final long[] reasons = new long[1];
  private final AtomicBoolean closed = new AtomicBoolean();

  private NvmlMetricsSource(int index, String name, nvmlDevice_st device) {
    this.index = index;
    this.name = name;
    this.device = device;
  }

  /**
   * Initialises NVML and opens GPU {@code deviceIndex}.
   *
   * @throws IllegalArgumentException when {@code deviceIndex} is negative
   * @throws IllegalStateException when NVML cannot be initialised or has no such GPU
   * @throws LinkageError when the NVML library or the preset's natives cannot be loaded
   */
  public static NvmlMetricsSource open(int deviceIndex) {
    if (deviceIndex < 0) {
      throw new IllegalArgumentException("deviceIndex must be >= 0: " + deviceIndex);
    }
    check("nvmlInit_v2", nvmlInit_v2());
    try {
      nvmlDevice_st device = new nvmlDevice_st();
      check("nvmlDeviceGetHandleByIndex_v2(" + deviceIndex + ")", nvmlDeviceGetHandleByIndex_v2(deviceIndex, device));
      byte[] buf = new byte[96];
      String name = nvmlDeviceGetName(device, buf, buf.length) == NVML_SUCCESS ? cString(buf) : "?";
      return new NvmlMetricsSource(deviceIndex, name, device);
    } catch (RuntimeException e) {
      nvmlShutdown();
      throw e;
    }
  }

  /**
   * {@link #open(int)}, or — where NVML is absent or fails (no driver, no GPU, natives missing) — one
   * log line and {@link GpuMetricsSource#noop()}. Never throws except for a negative index.
   */
  public static GpuMetricsSource openOrNoop(int deviceIndex) {
    if (deviceIndex < 0) {
      throw new IllegalArgumentException("deviceIndex must be >= 0: " + deviceIndex);
    }
    try {
      return open(deviceIndex);
    } catch (RuntimeException | LinkageError e) {
      LOG.info("NVML GPU metrics unavailable for GPU {}, GPU fields stay empty: {}", deviceIndex, rootMessage(e));
      return GpuMetricsSource.noop();
    }
  }

  /** The GPU's index. */
  public int deviceIndex() {
    return index;
  }

  /** The GPU's name as NVML reports it. */
  public String deviceName() {
    return name;
  }

  // nvmlDeviceGetTemperature is deprecated in favour of nvmlDeviceGetTemperatureV (a versioned struct);
  // the plain call still works on the 580 driver (read on the H200) and on older drivers that lack the V form.
  @Override
  @SuppressWarnings("deprecation")
  public synchronized GpuMetricsSource.Reading read() {
    if (closed.get()) {
      throw new IllegalStateException("NvmlMetricsSource is closed");
    }
    double utilPct = Double.NaN;
    double memUtilPct = Double.NaN;
    if (nvmlDeviceGetUtilizationRates(device, util) == NVML_SUCCESS) {
      utilPct = util.gpu();
      memUtilPct = util.memory(); // memory-bandwidth utilisation, not memory held
    }
    check("nvmlDeviceGetMemoryInfo", nvmlDeviceGetMemoryInfo(device, memory));
    double used = memory.used() / MIB;
    double total = memory.total() / MIB;
    double temp = nvmlDeviceGetTemperature(device, NVML_TEMPERATURE_GPU, value) == NVML_SUCCESS ? value[0] : Double.NaN;
    double sm = nvmlDeviceGetClockInfo(device, NVML_CLOCK_SM, value) == NVML_SUCCESS ? value[0] : Double.NaN;
    List<String> throttle =
        nvmlDeviceGetCurrentClocksEventReasons(device, reasons) == NVML_SUCCESS ? reasonNames(reasons[0]) : List.of();
    return GpuMetricsSource.Reading.builder().utilPercent(utilPct).memUtilPercent(memUtilPct).memUsedMb(used)
        .memTotalMb(total).temperatureC(temp).smClockMhz(sm).throttleReasons(throttle)
        .epochMillis(System.currentTimeMillis()).build();
  }

  /**
   * NVML's memory utilisation now: the percentage of the last sample period (1/6 s to 1 s, by product)
   * in which device memory was being read or written — memory-bandwidth use, not memory held. NaN when
   * NVML cannot say.
   */
  public synchronized double memoryUtilPercent() {
    if (closed.get()) {
      throw new IllegalStateException("NvmlMetricsSource is closed");
    }
    return nvmlDeviceGetUtilizationRates(device, util) == NVML_SUCCESS ? util.memory() : Double.NaN;
  }

  /** Shuts NVML down (NVML counts init/shutdown pairs). Idempotent. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      nvmlShutdown();
    }
  }

  /** Names of the clock-event (throttle) reason bits set in {@code mask}; unknown bits as {@code 0x…}. */
  static List<String> reasonNames(long mask) {
    List<String> out = new ArrayList<>();
    long rest = mask;
    for (int i = 0; i < REASON_BITS.length; i++) {
      if ((mask & REASON_BITS[i]) != 0) {
        out.add(REASON_NAMES[i]);
        rest &= ~REASON_BITS[i];
      }
    }
    if (rest != 0) {
      out.add("0x" + Long.toHexString(rest));
    }
    return out;
  }

  private static void check(String call, int rc) {
    if (rc != NVML_SUCCESS) {
      String text;
      try {
        BytePointer s = nvmlErrorString(rc);
        text = s == null ? "?" : s.getString();
      } catch (RuntimeException | LinkageError e) {
        text = "?";
      }
      throw new IllegalStateException(call + " failed: NVML error " + rc + " (" + text + ")");
    }
  }

  private static String cString(byte[] buf) {
    int n = 0;
    while (n < buf.length && buf[n] != 0) {
      n++;
    }
    return new String(buf, 0, n, StandardCharsets.US_ASCII);
  }

  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String m = t.getMessage();
    return t.getClass().getSimpleName() + (m == null ? "" : ": " + m);
  }
}
