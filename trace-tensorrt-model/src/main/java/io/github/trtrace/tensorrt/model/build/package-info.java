/** Implementation of trtrace for TensorRT: the engine inspector's JSON parser and its JSON and precision helpers. Not API (not exported by the module): may change in any release. */
@NullMarked
package io.github.trtrace.tensorrt.internal.build;

import org.jspecify.annotations.NullMarked;
