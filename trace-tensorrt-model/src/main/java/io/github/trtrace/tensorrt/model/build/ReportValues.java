package io.github.trtrace.tensorrt.model.build;

import io.github.trtrace.tensorrt.model.log.RecordedError;
import io.github.trtrace.tensorrt.model.log.TrtLogEvent;
import io.github.trtrace.tensorrt.model.log.TrtSeverity;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The values of a {@link BuildReport}: mutable while its {@link BuildReport.Builder} fills them, then copied
 * once into an immutable instance ({@link #frozen()}) that the report keeps.
 */
final class ReportValues {
  final String modelName;
  BuildReport.Status status = BuildReport.Status.SUCCESS;
  @Nullable String tensorrtVersion;
  BuildReport.Gpu gpu = BuildReport.Gpu.UNKNOWN;
  @Nullable String driverVersion;
  @Nullable String cudaRuntimeVersion;
  List<String> builderFlags = new ArrayList<>();
  @Nullable String precision;
  boolean stronglyTyped;
  int optimizationLevel = -1;
  int networkLayerCount = -1;
  int engineLayerCount = -1;
  List<BuildReport.FusedGroup> fusedGroups = new ArrayList<>();
  List<BuildReport.Layer> layers = new ArrayList<>();
  long deviceMemoryBytes = -1;
  long planBytes = -1;
  double buildMs = Double.NaN;
  List<BuildReport.Phase> phases = new ArrayList<>();
  long progressEventsDropped;
  List<String> warnings = new ArrayList<>();
  List<BuildReport.BuildError> errors = new ArrayList<>();
  List<String> log = new ArrayList<>();
  @Nullable BuildFailureDiagnosis diagnosis;
  @Nullable String engineFingerprint;
  Instant createdAt = Instant.now();

  ReportValues(String modelName) {
    this.modelName = modelName;
  }

  /** A mutable copy of {@code o}. */
  ReportValues(ReportValues o) {
    this(o.modelName);
    status = o.status;
    tensorrtVersion = o.tensorrtVersion;
    gpu = o.gpu;
    driverVersion = o.driverVersion;
    cudaRuntimeVersion = o.cudaRuntimeVersion;
    builderFlags.addAll(o.builderFlags);
    precision = o.precision;
    stronglyTyped = o.stronglyTyped;
    optimizationLevel = o.optimizationLevel;
    networkLayerCount = o.networkLayerCount;
    engineLayerCount = o.engineLayerCount;
    fusedGroups.addAll(o.fusedGroups);
    layers.addAll(o.layers);
    deviceMemoryBytes = o.deviceMemoryBytes;
    planBytes = o.planBytes;
    buildMs = o.buildMs;
    phases.addAll(o.phases);
    progressEventsDropped = o.progressEventsDropped;
    warnings.addAll(o.warnings);
    errors.addAll(o.errors);
    log.addAll(o.log);
    diagnosis = o.diagnosis;
    engineFingerprint = o.engineFingerprint;
    createdAt = o.createdAt;
  }

  /** An immutable copy; the engine layer count defaults to the number of layers. */
  ReportValues frozen() {
    ReportValues f = new ReportValues(this);
    f.builderFlags = List.copyOf(builderFlags);
    f.fusedGroups = List.copyOf(fusedGroups);
    f.layers = List.copyOf(layers);
    f.phases = List.copyOf(phases);
    f.warnings = List.copyOf(warnings);
    f.errors = List.copyOf(errors);
    f.log = List.copyOf(log);
    if (f.engineLayerCount < 0 && !f.layers.isEmpty()) {
      f.engineLayerCount = f.layers.size();
    }
    return f;
  }

  void takeInspection(EngineInspection inspection) {
    String used = inspection.precision();
    if (used != null) {
      precision = Precisions.normalize(used);
    }
    layers.clear();
    layers.addAll(inspection.layers());
    fusedGroups.clear();
    fusedGroups.addAll(inspection.fusedGroups());
    engineLayerCount = inspection.layers().size();
  }

  void takeBuildLog(List<TrtLogEvent> events, List<RecordedError> recorded) {
    for (TrtLogEvent e : events) {
      log.add(e.severity().name() + ' ' + e.kind().wireName() + ": " + e.message());
      if (e.severity() == TrtSeverity.WARNING) {
        warnings.add(e.message());
      } else if (e.isError()) {
        errors.add(new BuildReport.BuildError(e.errorCode(), e.errorCategory(), e.message()));
      }
    }
    for (RecordedError r : recorded) {
      boolean logged = errors.stream().anyMatch(x -> x.message().equals(r.description()));
      if (!logged) {
        errors.add(new BuildReport.BuildError(r.code(), r.category(), r.description()));
      }
    }
  }

  private List<Object> all() {
    return java.util.Arrays.asList(modelName, status, tensorrtVersion, gpu, driverVersion, cudaRuntimeVersion,
        builderFlags, precision, stronglyTyped, optimizationLevel, networkLayerCount, engineLayerCount, fusedGroups,
        layers, deviceMemoryBytes, planBytes, buildMs, phases, progressEventsDropped, warnings, errors, log, diagnosis,
        engineFingerprint, createdAt);
  }

  boolean valuesEqual(ReportValues o) {
    return all().equals(o.all()); // doubles compare as Double.equals: NaN equals NaN, as in a record
  }

  int valuesHash() {
    return Objects.hash(all().toArray());
  }
}
