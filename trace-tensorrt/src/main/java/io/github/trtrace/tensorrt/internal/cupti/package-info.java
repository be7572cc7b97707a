/**
 * GPU kernel records through CUPTI's activity API: the process's recorder ({@code CuptiRecorder}, JavaCPP's
 * cupti preset) and, free of CUPTI types and tested in CI, the rows it copies out of CUPTI's buffers and the
 * joiner that ties them to launches and writes their launch-log lines. Not API (not exported by the module):
 * may change in any release.
 *
 * <pre>{@code
 * LaunchRecorder r = CuptiRecorder.shared();   // LaunchRecorder.OFF when CUPTI cannot record here
 * }</pre>
 */
@NullMarked
package io.github.trtrace.tensorrt.internal.cupti;

import org.jspecify.annotations.NullMarked;
