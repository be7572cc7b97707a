package io.github.trtrace.core.gpu;

import java.util.List;
import java.util.Objects;

/**
 * Reads GPU metrics. Polled by a background thread at a fixed interval, never on the request path;
 * records carry the latest reading. {@code trace-tensorrt} provides an NVML implementation.
 *
 * <pre>{@code
 * InferenceTracer.builder().gpuMetrics(NvmlMetricsSource.open(0), Duration.ofMillis(500)).build();
 * }</pre>
 */
public interface GpuMetricsSource extends AutoCloseable {

  /** Reads the current metrics. May block briefly (driver call); may throw, which is counted. */
  Reading read() throws Exception;

  /** Releases the backend. */
  @Override
  default void close() {}

  /** The source used when none is configured: always {@link Reading#UNKNOWN}. */
  static GpuMetricsSource noop() {
    return () -> Reading.UNKNOWN;
  }

  /**
   * One poll of a GPU's metrics. Unknown values are {@code NaN}. Built with {@link #builder()}, so
   * that metrics can be added without breaking sources.
   *
   * <pre>{@code
   * GpuMetricsSource.Reading r = GpuMetricsSource.Reading.builder()
   *     .utilPercent(87.0).memUtilPercent(42.0).memUsedMb(61_440).memTotalMb(143_771)
   *     .epochMillis(System.currentTimeMillis()).build();
   * }</pre>
   */
  final class Reading {
    /** A reading with every value unknown. */
    public static final Reading UNKNOWN = builder().build();

    private final double utilPercent;
    private final double memUtilPercent;
    private final double memUsedMb;
    private final double memTotalMb;
    private final double temperatureC;
    private final double smClockMhz;
    private final List<String> throttleReasons;
    private final long epochMillis;

    private Reading(Builder b) {
      this.utilPercent = b.utilPercent;
      this.memUtilPercent = b.memUtilPercent;
      this.memUsedMb = b.memUsedMb;
      this.memTotalMb = b.memTotalMb;
      this.temperatureC = b.temperatureC;
      this.smClockMhz = b.smClockMhz;
      this.throttleReasons = b.throttleReasons;
      this.epochMillis = b.epochMillis;
    }

    /** A builder with every value unknown ({@code NaN}, no throttle reason, time 0). */
    public static Builder builder() {
      return new Builder();
    }

    /** SM utilisation over the last sample period, 0..100. */
    public double utilPercent() { return utilPercent; }

    /**
     * Memory-bandwidth utilisation over the last sample period, 0..100 (NVML's {@code memory}
     * utilisation rate: the fraction of time device memory was read or written).
     */
    public double memUtilPercent() { return memUtilPercent; }

    /** Device memory in use, MiB. */
    public double memUsedMb() { return memUsedMb; }

    /** Device memory in total, MiB. */
    public double memTotalMb() { return memTotalMb; }

    /** Core temperature, degrees Celsius. */
    public double temperatureC() { return temperatureC; }

    /** Current SM clock, MHz. */
    public double smClockMhz() { return smClockMhz; }

    /** Backend-specific names of active throttle reasons (empty when none). */
    public List<String> throttleReasons() { return throttleReasons; }

    /** Wall-clock time of the poll. */
    public long epochMillis() { return epochMillis; }

    @Override
    public boolean equals(Object o) {
      if (!(o instanceof Reading)) {
        return false;
      }
      Reading r = (Reading) o;
      return Double.compare(utilPercent, r.utilPercent) == 0
          && Double.compare(memUtilPercent, r.memUtilPercent) == 0
          && Double.compare(memUsedMb, r.memUsedMb) == 0
          && Double.compare(memTotalMb, r.memTotalMb) == 0
          && Double.compare(temperatureC, r.temperatureC) == 0
          && Double.compare(smClockMhz, r.smClockMhz) == 0
          && throttleReasons.equals(r.throttleReasons)
          && epochMillis == r.epochMillis;
    }

    @Override
    public int hashCode() {
      return Objects.hash(utilPercent, memUtilPercent, memUsedMb, memTotalMb, temperatureC, smClockMhz,
          throttleReasons, epochMillis);
    }

    @Override
    public String toString() {
      return "Reading[utilPercent=" + utilPercent + ", memUtilPercent=" + memUtilPercent + ", memUsedMb="
          + memUsedMb + ", memTotalMb=" + memTotalMb + ", temperatureC=" + temperatureC + ", smClockMhz="
          + smClockMhz + ", throttleReasons=" + throttleReasons + ", epochMillis=" + epochMillis + "]";
    }

    /** Builds a {@link Reading}; every value not set is unknown. */
    public static final class Builder {
      private double utilPercent = Double.NaN;
      private double memUtilPercent = Double.NaN;
      private double memUsedMb = Double.NaN;
      private double memTotalMb = Double.NaN;
      private double temperatureC = Double.NaN;
      private double smClockMhz = Double.NaN;
      private List<String> throttleReasons = List.of();
      private long epochMillis;

      private Builder() {}

      public Builder utilPercent(double v) { utilPercent = v; return this; }
      public Builder memUtilPercent(double v) { memUtilPercent = v; return this; }
      public Builder memUsedMb(double v) { memUsedMb = v; return this; }
      public Builder memTotalMb(double v) { memTotalMb = v; return this; }
      public Builder temperatureC(double v) { temperatureC = v; return this; }
      public Builder smClockMhz(double v) { smClockMhz = v; return this; }

      public Builder throttleReasons(List<String> v) {
        throttleReasons = List.copyOf(v);
        return this;
      }

      public Builder epochMillis(long v) { epochMillis = v; return this; }

      public Reading build() {
        return new Reading(this);
      }
    }
  }
}
