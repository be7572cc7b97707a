package io.github.trtrace.core.gpu;

/**
 * One poll of a GPU's metrics. Unknown values are {@code NaN}.
 *
 * @param utilPercent SM utilisation over the last sample period, 0..100
 * @param memUsedMb device memory in use, MiB
 * @param memTotalMb device memory in total, MiB
 * @param temperatureC core temperature, degrees Celsius
 * @param smClockMhz current SM clock
 * @param throttleReasons backend-specific names of active throttle reasons (empty when none)
 * @param epochMillis wall-clock time of the poll
 */
public record GpuReading(
    double utilPercent,
    double memUsedMb,
    double memTotalMb,
    double temperatureC,
    double smClockMhz,
    java.util.List<String> throttleReasons,
    long epochMillis) {

  /** A reading where nothing is known. */
  public static final GpuReading UNKNOWN =
      new GpuReading(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, java.util.List.of(), 0L);

  public GpuReading {
    throttleReasons = java.util.List.copyOf(throttleReasons);
  }
}
