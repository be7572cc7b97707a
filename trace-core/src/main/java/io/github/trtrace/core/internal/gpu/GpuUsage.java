package io.github.trtrace.core.internal.gpu;

/**
 * GPU utilisation over one request's lifetime: mean and maximum of the readings in effect while it
 * ran (the latest one when it started and every one taken until it ended). Unknown values are NaN.
 *
 * <pre>{@code
 * GpuMetricsPoller.Mark start = poller.mark();
 * ... // the request runs
 * GpuUsage u = poller.usageSince(start);   // u.utilMean(), u.utilMax(), ...
 * }</pre>
 *
 * @param utilMean mean SM utilisation, percent
 * @param utilMax highest SM utilisation, percent
 * @param memUtilMean mean memory-bandwidth utilisation, percent
 * @param memUtilMax highest memory-bandwidth utilisation, percent
 * @param readings how many readings the values come from (0: nothing known)
 */
public record GpuUsage(double utilMean, double utilMax, double memUtilMean, double memUtilMax, int readings) {
  /** Nothing known. */
  public static final GpuUsage UNKNOWN = new GpuUsage(Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0);
}
