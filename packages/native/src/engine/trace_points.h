// Phase trace points: timestamps at the hand-offs of a call's path (binding, engine cycle,
// negotiation, delivery), for `npm run bench -- phases`, which builds the addon with
// -DKOLO_PHASE_TRACE=ON into a build of its own. In every other build the macros compile to
// nothing, so the hot path carries no trace code.
#pragma once

#ifdef KOLO_PHASE_TRACE
namespace kolo::phase_trace {
// Records `tag` (a string literal) with the time and whether this is an engine thread.
void Mark(const char* tag);
// Marks the calling thread as the engine's background thread.
void OnBackgroundThread();
// Writes every record to "$KOLO_PHASE_TRACE.<rank>" (nothing when that is unset).
void Dump(int rank);
}  // namespace kolo::phase_trace
#define KOLO_TRACE_POINT(tag) ::kolo::phase_trace::Mark(tag)
#define KOLO_TRACE_BACKGROUND() ::kolo::phase_trace::OnBackgroundThread()
#define KOLO_TRACE_DUMP(rank) ::kolo::phase_trace::Dump(rank)
#else
#define KOLO_TRACE_POINT(tag) ((void)0)
#define KOLO_TRACE_BACKGROUND() ((void)0)
#define KOLO_TRACE_DUMP(rank) ((void)(rank))
#endif
