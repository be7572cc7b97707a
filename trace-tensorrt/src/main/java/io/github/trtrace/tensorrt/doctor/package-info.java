/**
 * Environment doctor: {@link io.github.trtrace.tensorrt.doctor.TensorRtDoctor} probes (the only JavaCPP
 * user here) and fills {@link io.github.trtrace.tensorrt.doctor.DoctorFacts}; {@link
 * io.github.trtrace.tensorrt.doctor.DoctorAdvice} turns the facts into a {@link
 * io.github.trtrace.tensorrt.doctor.DoctorReport} of findings with advice, rendered as text or JSON.
 *
 * <pre>{@code
 * DoctorReport report = TensorRtDoctor.report();           // probe() + DoctorAdvice.evaluate(...)
 * System.out.println(report.toText());
 * System.out.println(DoctorAdvice.evaluate(facts).toJson()); // facts from anywhere, e.g. a test
 * }</pre>
 */
@NullMarked
package io.github.trtrace.tensorrt.doctor;

import org.jspecify.annotations.NullMarked;
