/**
 * TensorRT build reports as plain data: the report and its JSON form, the engine fingerprint, the engine
 * inspector's JSON, what changed between two reports, a CI gate, and why a failed build failed. No JavaCPP:
 * trace-tensorrt's traced builder writes these reports; CI and the {@code trtrace} command line read them.
 *
 * <pre>{@code
 * BuildGate.builder().maxFusionRateDrop(0.02).build()
 *     .assertPasses(BuildReport.read(Path.of("new.build.json")), BuildReport.read(Path.of("baseline.build.json")));
 * }</pre>
 */
@NullMarked
package io.github.trtrace.tensorrt.model.build;

import org.jspecify.annotations.NullMarked;
