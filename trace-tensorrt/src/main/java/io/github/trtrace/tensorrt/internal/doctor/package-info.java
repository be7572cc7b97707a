/** Implementation of trtrace for TensorRT: the doctor's rules (facts to findings). Not API (not exported by the module): may change in any release. */
@NullMarked
package io.github.trtrace.tensorrt.internal.doctor;

import org.jspecify.annotations.NullMarked;
