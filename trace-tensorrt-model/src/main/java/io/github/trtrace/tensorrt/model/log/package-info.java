/** Implementation of trtrace for TensorRT: the TensorRT log-line classifier. Not API (not exported by the module): may change in any release. */
@NullMarked
package io.github.trtrace.tensorrt.internal.log;

import org.jspecify.annotations.NullMarked;
