/*
 * The layout numbers seqshim's Rust mirrors assert, checked here against a
 * set of WFA2-lib headers: compiled once with the distribution's headers
 * and once with seqshim's own (include/wfa2lib), so both must agree.
 * Prints the sizes of the two exported data objects for the nm comparison.
 */
#include "utils/commons.h"
#include "wavefront/wfa.h"
#include "alignment/score_matrix.h"
#include "utils/sequence_buffer.h"

#include <stddef.h>

#define AT(type, field, off) _Static_assert(offsetof(type, field) == (off), #type "." #field)
#define SIZE(type, n, a) \
  _Static_assert(sizeof(type) == (n), "sizeof " #type); \
  _Static_assert(_Alignof(type) == (a), "alignof " #type)

SIZE(wavefront_aligner_attr_t, 328, 8);
AT(wavefront_aligner_attr_t, distance_metric, 0);
AT(wavefront_aligner_attr_t, alignment_scope, 4);
AT(wavefront_aligner_attr_t, alignment_form.span, 8);
AT(wavefront_aligner_attr_t, alignment_form.pattern_begin_free, 12);
AT(wavefront_aligner_attr_t, alignment_form.pattern_end_free, 16);
AT(wavefront_aligner_attr_t, alignment_form.text_begin_free, 20);
AT(wavefront_aligner_attr_t, alignment_form.text_end_free, 24);
AT(wavefront_aligner_attr_t, linear_penalties.match, 28);
AT(wavefront_aligner_attr_t, linear_penalties.mismatch, 32);
AT(wavefront_aligner_attr_t, linear_penalties.indel, 36);
AT(wavefront_aligner_attr_t, affine_penalties.match, 40);
AT(wavefront_aligner_attr_t, affine_penalties.mismatch, 44);
AT(wavefront_aligner_attr_t, affine_penalties.gap_opening, 48);
AT(wavefront_aligner_attr_t, affine_penalties.gap_extension, 52);
AT(wavefront_aligner_attr_t, affine2p_penalties.match, 56);
AT(wavefront_aligner_attr_t, affine2p_penalties.gap_opening1, 64);
AT(wavefront_aligner_attr_t, affine2p_penalties.gap_extension2, 76);
AT(wavefront_aligner_attr_t, heuristic.strategy, 80);
AT(wavefront_aligner_attr_t, heuristic.steps_between_cutoffs, 84);
AT(wavefront_aligner_attr_t, heuristic.min_k, 88);
AT(wavefront_aligner_attr_t, heuristic.max_k, 92);
AT(wavefront_aligner_attr_t, heuristic.min_wavefront_length, 96);
AT(wavefront_aligner_attr_t, heuristic.max_distance_threshold, 100);
AT(wavefront_aligner_attr_t, heuristic.xdrop, 104);
AT(wavefront_aligner_attr_t, heuristic.zdrop, 108);
AT(wavefront_aligner_attr_t, heuristic.steps_wait, 112);
AT(wavefront_aligner_attr_t, heuristic.max_sw_score_k, 124);
AT(wavefront_aligner_attr_t, memory_mode, 128);
AT(wavefront_aligner_attr_t, match_funct, 136);
AT(wavefront_aligner_attr_t, match_funct_arguments, 144);
AT(wavefront_aligner_attr_t, mm_allocator, 152);
AT(wavefront_aligner_attr_t, plot.enabled, 160);
AT(wavefront_aligner_attr_t, plot.resolution_points, 164);
AT(wavefront_aligner_attr_t, plot.align_level, 168);
AT(wavefront_aligner_attr_t, system.max_alignment_score, 176);
AT(wavefront_aligner_attr_t, system.probe_interval_global, 180);
AT(wavefront_aligner_attr_t, system.probe_interval_compact, 184);
AT(wavefront_aligner_attr_t, system.max_partial_compacts, 192);
AT(wavefront_aligner_attr_t, system.max_memory_compact, 200);
AT(wavefront_aligner_attr_t, system.max_memory_resident, 208);
AT(wavefront_aligner_attr_t, system.max_memory_abort, 216);
AT(wavefront_aligner_attr_t, system.verbose, 224);
AT(wavefront_aligner_attr_t, system.check_alignment_correct, 228);
AT(wavefront_aligner_attr_t, system.timer, 232);
AT(wavefront_aligner_attr_t, system.max_num_threads, 320);
AT(wavefront_aligner_attr_t, system.min_offsets_per_thread, 324);

SIZE(cigar_t, 32, 8);
AT(cigar_t, operations, 0);
AT(cigar_t, max_operations, 8);
AT(cigar_t, begin_offset, 12);
AT(cigar_t, end_offset, 16);
AT(cigar_t, score, 20);
AT(cigar_t, mm_allocator, 24);

SIZE(wavefront_aligner_t, 536, 8);
AT(wavefront_aligner_t, align_mode, 0);
AT(wavefront_aligner_t, align_mode_tag, 8);
AT(wavefront_aligner_t, align_status.status, 16);
AT(wavefront_aligner_t, align_status.score, 20);
AT(wavefront_aligner_t, align_status.num_null_steps, 24);
AT(wavefront_aligner_t, align_status.memory_used, 32);
AT(wavefront_aligner_t, align_status.wf_align_compute, 40);
AT(wavefront_aligner_t, align_status.wf_align_extend, 48);
AT(wavefront_aligner_t, sequences, 56);
AT(wavefront_aligner_t, pattern, 64);
AT(wavefront_aligner_t, pattern_length, 72);
AT(wavefront_aligner_t, text, 80);
AT(wavefront_aligner_t, text_length, 88);
AT(wavefront_aligner_t, match_funct, 96);
AT(wavefront_aligner_t, match_funct_arguments, 104);
AT(wavefront_aligner_t, alignment_scope, 112);
AT(wavefront_aligner_t, alignment_form, 116);
AT(wavefront_aligner_t, penalties.distance_metric, 136);
AT(wavefront_aligner_t, penalties.match, 140);
AT(wavefront_aligner_t, penalties.gap_extension2, 160);
AT(wavefront_aligner_t, heuristic, 164);
AT(wavefront_aligner_t, memory_mode, 212);
AT(wavefront_aligner_t, wf_components, 216);
AT(wavefront_aligner_t, component_begin, 312);
AT(wavefront_aligner_t, component_end, 316);
AT(wavefront_aligner_t, alignment_end_pos, 320);
AT(wavefront_aligner_t, bialigner, 336);
AT(wavefront_aligner_t, cigar, 344);
AT(wavefront_aligner_t, mm_allocator_own, 352);
AT(wavefront_aligner_t, mm_allocator, 360);
AT(wavefront_aligner_t, wavefront_slab, 368);
AT(wavefront_aligner_t, plot, 376);
AT(wavefront_aligner_t, system, 384);
AT(wavefront_aligner_t, system.max_alignment_score, 384);
AT(wavefront_aligner_t, system.verbose, 432);
AT(wavefront_aligner_t, system.max_num_threads, 528);
SIZE(wavefront_components_t, 96, 8);
SIZE(wavefront_heuristic_t, 48, 4);
SIZE(wavefront_penalties_t, 28, 4);
SIZE(alignment_form_t, 20, 4);
SIZE(alignment_system_t, 152, 8);

SIZE(mm_allocator_t, 56, 8);
SIZE(profiler_counter_t, 64, 8);
AT(profiler_counter_t, total, 0);
AT(profiler_counter_t, samples, 8);
AT(profiler_counter_t, min, 16);
AT(profiler_counter_t, max, 24);
AT(profiler_counter_t, m_oldM, 32);
AT(profiler_counter_t, m_newS, 56);
SIZE(profiler_timer_t, 88, 8);
AT(profiler_timer_t, begin_timer, 0);
AT(profiler_timer_t, time_ns, 16);
AT(profiler_timer_t, accumulated, 80);
SIZE(sequence_offset_t, 32, 8);
SIZE(sequence_buffer_t, 64, 8);
AT(sequence_buffer_t, sequence_id, 0);
AT(sequence_buffer_t, offsets, 8);
AT(sequence_buffer_t, offsets_used, 16);
AT(sequence_buffer_t, offsets_allocated, 24);
AT(sequence_buffer_t, buffer, 32);
AT(sequence_buffer_t, buffer_used, 40);
AT(sequence_buffer_t, buffer_allocated, 48);
AT(sequence_buffer_t, max_pattern_length, 56);
AT(sequence_buffer_t, max_text_length, 60);
SIZE(score_matrix_t, 24, 8);
AT(score_matrix_t, columns, 0);
AT(score_matrix_t, num_rows, 8);
AT(score_matrix_t, num_columns, 12);
AT(score_matrix_t, mm_allocator, 16);
SIZE(linear_penalties_t, 12, 4);
SIZE(affine_penalties_t, 16, 4);
SIZE(affine2p_penalties_t, 24, 4);
_Static_assert(sizeof(distance_metric_t) == 4, "enum size");
_Static_assert(sizeof(wf_heuristic_strategy) == 4, "enum size");
_Static_assert(sizeof(wavefront_memory_t) == 4, "enum size");

int main(void) {
  printf("attr_default %zu\nwf_error_msg %zu\n", sizeof(wavefront_aligner_attr_default),
         sizeof(wf_error_msg));
  return 0;
}
