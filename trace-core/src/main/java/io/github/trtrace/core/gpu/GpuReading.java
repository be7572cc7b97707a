package io.github.trtrace.core.gpu;

/**
 * One poll of a GPU's metrics. Unknown values are {@code NaN}.
 *
 * <pre>{@code
 * GpuReading r = new GpuReading(87.0, 42.0, 61_440, 143_771, 41, 1980, List.of(), System.currentTimeMillis());
 * }</pre>
 *
 * @param utilPercent SM utilisation over the last sample period, 0..100
 * @param memUtilPercent memory-bandwidth utilisation over the last sample period, 0..100 (NVML's
 *     {@code memory} utilisation rate: the fraction of time device memory was read or written)
 * @param memUsedMb device memory in use, MiB
 * @param memTotalMb device memory in total, MiB
 * @param temperatureC core temperature, degrees Celsius
 * @param smClockMhz current SM clock
 * @param throttleReasons backend-specific names of active throttle reasons (empty when none)
 * @param epochMillis wall-clock time of the poll
 */
public record GpuReading(
    double utilPercent,
    double memUtilPercent,
    double memUsedMb,
    double memTotalMb,
    double temperatureC,
    double smClockMhz,
    java.util.List<String> throttleReasons,
    long epochMillis) {

  /** A reading where nothing is known. */
  public static final GpuReading UNKNOWN =
      new GpuReading(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, java.util.List.of(), 0L);

  public GpuReading {
    throttleReasons = java.util.List.copyOf(throttleReasons);
  }

  /** A reading without memory-bandwidth utilisation ({@code memUtilPercent} unknown). */
  public GpuReading(
      double utilPercent,
      double memUsedMb,
      double memTotalMb,
      double temperatureC,
      double smClockMhz,
      java.util.List<String> throttleReasons,
      long epochMillis) {
    this(utilPercent, Double.NaN, memUsedMb, memTotalMb, temperatureC, smClockMhz, throttleReasons, epochMillis);
  }
}
