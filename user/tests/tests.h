/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between the unit test files. */
#ifndef GPUPROBE_TESTS_H
#define GPUPROBE_TESTS_H

#include <stddef.h>

#include "agg.h"

struct agg *load_agg(const char *path, struct trace_info *info, char *err, size_t errlen);

void test_reader_rejects_bad_magic(void);
void test_reader_names_truncation_offset(void);
void test_reader_zero_tail_is_a_cut(void);
void test_truncation_every_boundary(void);
void test_reader_rejects_bad_sizes(void);
void test_reader_rejects_trailing_data(void);
void test_fuzz_flips_and_truncations(void);
void test_truncation_every_chunk(void);
void test_close_waits_for_chunk_thread(void);
void test_encodings_agree(void);
void test_damage_flipped_bytes(void);
void test_damage_headers(void);
void test_damage_report(void);
void test_damage_version2_as_before(void);
void test_cut_inside_compact_chunks(void);
void test_cut_inside_zstd_chunks(void);
void test_roundtrip_every_field(void);
void test_roundtrip_refusals(void);
void test_command_round_trip(void);
void test_command_cut(void);
void test_command_malformed(void);
void test_irq_pairing(void);
void test_record_batches(void);
void test_module_event_mask(void);
void test_tracefs_filters(void);
void test_attribution_known_timeline(void);
void test_attribution_absent(void);
void test_stale_temp_files_removed(void);
void test_app_merge_resyncs(void);
void test_percentile_nearest_rank(void);
void test_percentile_hist_agrees(void);
void test_json_lossless(void);
void test_attribution_two_gpus(void);
void test_attribution_two_threads(void);
void test_attribution_thread_unknown(void);
void test_attribution_sync_outside_call(void);
void test_attribution_clock_margin(void);
void test_attribution_json_nulls(void);
void test_clockmap_drift(void);
void test_attribution_clock_all_streams(void);
void test_attribution_many_events(void);
void test_attribution_report_keys(void);
void test_attribution_two_processes(void);
void test_passthrough_text_note(void);
void test_passthrough_never_compared(void);
void test_cudaclock_bracket(void);
void test_cudaclock_pci_bus_id(void);
void test_cupti_api_selection(void);
void test_cupti_api_mode(void);
void test_tracing_cost(void);
void test_tracing_cost_parse(void);
void test_strtab_records(void);
void test_name_abbreviate(void);
void test_report_not_measured(void);
void test_clock_fit_known_offset_drift(void);
void test_clock_never_compared(void);
void test_tscclock_known_offset_scaling_change(void);
void test_tscclock_refuses_what_it_cannot_know(void);
void test_tscclock_rebased_guest_clock(void);
void test_tscclock_write_untraced_is_wrong(void);
void test_tscclock_unknown_cpu_skips_end_only(void);
void test_kvm_tsc_trace_line(void);
void test_passthrough_pairs_exact(void);
void test_passthrough_one_guest_irq_missing(void);
void test_passthrough_wrong_offset_counted(void);
void test_passthrough_through_injections(void);
void test_passthrough_late_guest_in_order(void);
void test_passthrough_other_injections(void);
void test_passthrough_repeated_injection(void);
void test_passthrough_wide_bound_by_order(void);
void test_passthrough_dma_maps(void);
void test_passthrough_guest_cut(void);
void test_unknown_types_skipped(void);
void test_guest_wrapper_checked(void);
void test_passthrough_json_shape(void);
void test_report_shared_domain(void);
void test_metrics_cut_consistent(void);
void test_metrics_summary_reload(void);
/* test_mutants.c: what surviving mutants showed untested */
void test_mutant_clock_extrapolation(void);
void test_mutant_dma_last_op(void);
void test_mutant_prometheus_low_buckets(void);
void test_mutant_tgid_cached(void);
void test_mutant_prometheus_every_target(void);
void test_mutant_percentile_p0(void);
void test_mutant_json_lone_continuation(void);
void test_mutant_hist_stars(void);
void test_mutant_metrics_at_the_cut(void);
void test_mutant_record_version_refused(void);
void test_mutant_machine_vectors(void);
void test_mutant_untimed_dma_text(void);
void test_mutant_truncated_target(void);
void test_metrics_rebind_same_irq(void);
void test_metrics_late_vector(void);
void test_metrics_exposition(void);
void test_metrics_label_escaping(void);
void test_kvm_pairing(void);
/* test_expect.c, test_expect_pt.c: hand-worked cases */
void test_kernel_count_match(void);
void test_irq_exit_names_its_irq(void);
void test_kvm_delivery_own_handler(void);
void test_rank_pairing_one_vcpu(void);
void test_rank_pairing_two_vcpus(void);
void test_rank_pairing_two_vectors(void);
void test_injection_names_its_irq(void);
void test_unattributed_iommu_two_gpus(void);
void test_iommu_parts_split(void);
void test_iommu_parts_text(void);
void test_iommu_parts_absent(void);
/* test_crossing.c: the host -> guest crossing of report */
void test_crossing_stages_exact(void);
void test_crossing_json(void);
void test_crossing_disagreement_warned(void);
void test_crossing_samples_capped(void);
void test_crossing_documented(void);

#endif /* GPUPROBE_TESTS_H */
