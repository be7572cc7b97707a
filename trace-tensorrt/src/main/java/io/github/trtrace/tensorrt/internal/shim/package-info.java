/**
 * A small native shim implementing TensorRT's {@code IProfiler}, {@code IErrorRecorder} and
 * {@code IProgressMonitor} in C++ (these interfaces cannot be subclassed from Java in the JavaCPP preset).
 * Events are buffered natively and drained from Java in one JNI call per drain.
 * Not API (not exported by the module): may change in any release.
 *
 * <pre>{@code
 * ShimErrorRecorder recorder = ShimErrorRecorder.create();
 * builder.setErrorRecorder(recorder.asTensorRt());
 * for (RecordedError e : recorder.drain()) log.error("TensorRT {}: {}", e.codeName(), e.description());
 * }</pre>
 */
@NullMarked
package io.github.trtrace.tensorrt.internal.shim;

import org.jspecify.annotations.NullMarked;
