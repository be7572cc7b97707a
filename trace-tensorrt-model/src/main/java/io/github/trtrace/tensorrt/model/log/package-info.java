/**
 * TensorRT log events as plain data: severity, what a line is about (kind, from the classifier), TensorRT's error
 * codes, and the errors an error recorder received. No JavaCPP: trace-tensorrt's logger bridge makes these events,
 * build reports and the command line read them.
 *
 * <pre>{@code
 * TrtLogKind kind = TrtLogClassifier.classify(TrtSeverity.ERROR, "Error Code 2: OutOfMemory (no further information)");
 * }</pre>
 */
@NullMarked
package io.github.trtrace.tensorrt.model.log;

import org.jspecify.annotations.NullMarked;
