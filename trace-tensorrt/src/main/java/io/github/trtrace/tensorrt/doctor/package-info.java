/**
 * Environment doctor: {@link io.github.trtrace.tensorrt.doctor.TensorRtDoctor} probes (the only JavaCPP
 * user here) and fills {@link io.github.trtrace.tensorrt.doctor.DoctorFacts}, which its rules turn into
 * a {@link io.github.trtrace.tensorrt.doctor.DoctorReport} of findings with advice, rendered as text or
 * JSON.
 *
 * <pre>{@code
 * DoctorReport report = TensorRtDoctor.report();
 * System.out.println(report.toText());
 * }</pre>
 */
@NullMarked
package io.github.trtrace.tensorrt.doctor;

import org.jspecify.annotations.NullMarked;
