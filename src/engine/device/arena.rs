//! Arenas: device memory and pinned staging, granted by the GPU's ledger,
//! grown on demand and reused;
//! fences and timing marks on an arena's stream; kernel launches.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};

use super::context::{err, shielded};
use super::faults::{self, Op};
use super::{DeviceError, Gpu, Kernel, STREAMS};
use crate::engine::config::{self, GpuWait};

impl Gpu {
    /// A new arena on stream `lane` (below [`STREAMS`]; larger values wrap).
    pub fn arena(self: &Arc<Self>, lane: usize) -> Arena {
        Arena {
            gpu: self.clone(),
            stream: self.streams[lane % STREAMS].clone(),
            device: None,
            staging: None,
            base: 0,
            capacity: 0,
            host_capacity: 0,
            device_limit: usize::MAX,
            host_limit: usize::MAX,
            pending: false,
            in_flight: Vec::new(),
            fences: std::collections::VecDeque::new(),
            next_fence: 0,
        }
    }
}

/// A device buffer and a pinned host buffer, bound to one stream. The host
/// buffer mirrors the start of the device buffer; it may be shorter, because
/// families keep their device-only working arrays at the end of a launch's
/// image and never copy them. Starts empty and grows (never shrinks) to the
/// largest batch seen, so steady-state batches allocate nothing; its bytes
/// count against the process's budget on the GPU ([`super::budget`]).
///
/// Uploads, launches and downloads are queued on the arena's stream and
/// return at once; `staging()` and `synchronize()` wait for them. A family
/// with two arenas (one per lane) can therefore pack the next batch on the
/// CPU while the GPU copies and computes the current one.
pub struct Arena {
    gpu: Arc<Gpu>,
    stream: Arc<CudaStream>,
    device: Option<CudaSlice<u8>>,
    staging: Option<PinnedHostSlice<u8>>,
    /// Device address of `device`, cached so queued work needs no borrow.
    base: u64,
    capacity: usize,
    /// Length of `staging`: uploads and downloads stay below it.
    host_capacity: usize,
    /// How far growth by half again may take `capacity` and
    /// `host_capacity` (see [`Arena::set_limits`]).
    device_limit: usize,
    host_limit: usize,
    /// Work queued on the stream that may still touch either buffer.
    pending: bool,
    /// Host ranges that queued copies may still read or write, each with
    /// the fence recorded after it (`None`: none yet).
    in_flight: Vec<(std::ops::Range<usize>, Option<u64>)>,
    /// Fences recorded and not yet waited for, oldest first.
    fences: std::collections::VecDeque<(u64, cudarc::driver::CudaEvent)>,
    next_fence: u64,
}

/// A point in an arena's stream: everything queued before it. See
/// [`Arena::fence`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fence(u64);

/// A timing event on an arena's stream, for the debug timeline: when the
/// GPU reached it, read with [`Arena::mark_time`] once it has passed.
pub struct Mark(cudarc::driver::CudaEvent);

/// One kernel parameter.
#[derive(Clone, Copy, Debug)]
pub enum Arg {
    /// A byte offset into the arena, passed as a device pointer.
    Offset(usize),
    U32(u32),
    I32(i32),
    U64(u64),
    F32(f32),
    F64(f64),
}

impl Arena {
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Bytes of the pinned host buffer (a prefix of the device buffer).
    pub fn host_capacity(&self) -> usize {
        self.host_capacity
    }

    /// Makes room for `bytes` on both sides, reallocating buffers that are
    /// smaller. Sizes grow by at least half again, to make regrowth rare.
    pub fn reserve(&mut self, bytes: usize) -> Result<(), DeviceError> {
        self.reserve_split(bytes, bytes)
    }

    /// Caps how far [`Arena::reserve_split`]'s growth by half again goes:
    /// a family's share of the budget for this arena (device) and of pinned
    /// memory (host). A request above a limit is still served exactly.
    pub fn set_limits(&mut self, device: usize, host: usize) {
        self.device_limit = device;
        self.host_limit = host;
    }

    /// Makes room for `device_bytes` on the device of which the first
    /// `host_bytes` (at most `device_bytes`) are mirrored in pinned host
    /// memory. Device bytes are granted by the GPU's ledger first; a grant
    /// refused leaves the arena as it was, an allocation that fails leaves
    /// it without that buffer. Either is an out-of-memory error
    /// ([`DeviceError::is_out_of_memory`]).
    pub fn reserve_split(
        &mut self,
        device_bytes: usize,
        host_bytes: usize,
    ) -> Result<(), DeviceError> {
        let host_bytes = host_bytes.min(device_bytes);
        if device_bytes <= self.capacity && host_bytes <= self.host_capacity {
            return Ok(());
        }
        self.synchronize()?;
        faults::check(Op::Alloc)?;
        let grown = |want: usize, have: usize, limit: usize| {
            let least = want.next_multiple_of(1 << 16);
            (
                least,
                want.max(have + have / 2)
                    .next_multiple_of(1 << 16)
                    .min(limit.max(least)),
            )
        };
        if device_bytes > self.capacity {
            let (least, most) = grown(device_bytes, self.capacity, self.device_limit);
            let free = self.gpu.memory().ok().map(|(free, _)| free);
            let granted = self.gpu.ledger.grant(self.capacity, least, most, free)?;
            let new_capacity = (granted & !0xffff).max(least);
            self.gpu.ledger.release(granted - new_capacity);
            // The old buffer goes first so a regrowth does not need twice
            // the memory (the ledger already counts the new size instead).
            self.device = None;
            self.base = 0;
            self.capacity = 0;
            let stream = self.stream.clone();
            let allocated = shielded("arena allocation", || {
                // Zeroed (one memset per growth, ordered on this stream):
                // a launch downloads its whole result region, slots a kernel
                // did not write included, so every byte must be defined.
                let device = stream.alloc_zeros::<u8>(new_capacity).map_err(|e| {
                    super::budget::out_of_memory(&format!(
                        "cuMemAlloc of {new_capacity} bytes failed: {e:?}"
                    ))
                })?;
                let base = {
                    use cudarc::driver::DevicePtr;
                    let (ptr, _record) = device.device_ptr(&stream);
                    ptr
                };
                Ok((device, base))
            });
            match allocated {
                Ok((device, base)) => {
                    self.device = Some(device);
                    self.base = base;
                    self.capacity = new_capacity;
                    // Growth is rare (by half again at least), so one line
                    // each shows how a process's memory follows its work.
                    crate::log_info!(
                        "GPU {}: an arena grew to {} MiB; this process holds {} MiB of its {} MiB cap",
                        self.gpu.info.ordinal,
                        new_capacity >> 20,
                        self.gpu.ledger.usage().device >> 20,
                        self.gpu.ledger.cap() >> 20
                    );
                }
                Err(e) => {
                    self.gpu.ledger.release(new_capacity);
                    // The host mirror is no longer a prefix of anything.
                    self.drop_staging();
                    return Err(e);
                }
            }
        }
        if host_bytes > self.host_capacity {
            let (least, most) = grown(host_bytes, self.host_capacity, self.host_limit);
            let new_host = most.min(self.capacity).max(least.min(self.capacity));
            self.drop_staging();
            let ctx = self.gpu.ctx.clone();
            // Plain (cached) page-locked memory: the host reads every result
            // back from this buffer, and CUDA documents CPU reads from the
            // write-combined kind (what `alloc_pinned` asks for) as very slow.
            // On an H200 host the WFA decode times stayed within the noise
            // between machines either way (BENCHMARKS.md).
            let staging = shielded("pinned allocation", || {
                // SAFETY: pinned bytes are only exposed through `staging()`,
                // which hands out `u8`s; every bit pattern is a valid `u8`.
                unsafe { ctx.alloc_pinned_with_flags::<u8>(new_host, 0) }.map_err(|e| {
                    super::budget::out_of_memory(&format!(
                        "cuMemHostAlloc of {new_host} bytes failed: {e:?}"
                    ))
                })
            })?;
            self.staging = Some(staging);
            self.host_capacity = new_host;
            self.gpu.ledger.pinned(0, new_host);
        }
        Ok(())
    }

    /// Frees the pinned mirror (the caller has synchronized).
    fn drop_staging(&mut self) {
        self.staging = None;
        self.gpu.ledger.pinned(self.host_capacity, 0);
        self.host_capacity = 0;
    }

    /// The pinned host buffer, `host_capacity()` bytes long, for packing inputs
    /// and reading outputs. Waits for queued work first, so what it shows is
    /// final and writing to it cannot race a copy in flight.
    pub fn staging(&mut self) -> Result<&mut [u8], DeviceError> {
        self.synchronize()?;
        match self.staging.as_mut() {
            Some(staging) => staging.as_mut_slice().map_err(|e| err("pinned buffer", e)),
            None => Ok(&mut []),
        }
    }

    /// Part of the pinned host buffer, waiting only for the queued copies
    /// that touch `range` (all queued work if one of them has no fence
    /// after it): a launch's inputs can be packed while the previous
    /// launch's kernel and copies, on other bytes, still run.
    pub fn staging_part(
        &mut self,
        range: std::ops::Range<usize>,
    ) -> Result<&mut [u8], DeviceError> {
        self.check_range(&range)?;
        let overlaps = |r: &std::ops::Range<usize>| r.start < range.end && range.start < r.end;
        let mut latest = None;
        for (r, fence) in &self.in_flight {
            if overlaps(r) {
                match fence {
                    None => {
                        latest = None;
                        self.synchronize()?;
                        break;
                    }
                    Some(f) => latest = latest.max(Some(*f)),
                }
            }
        }
        if let Some(f) = latest {
            self.wait(Fence(f))?;
        }
        let staging = self
            .staging
            .as_ref()
            .ok_or_else(|| DeviceError("arena used before reserve()".into()))?;
        let all = staging.as_slice().map_err(|e| err("pinned buffer", e))?;
        let start = all.as_ptr().cast_mut();
        // SAFETY: `range` lies inside the pinned buffer (`check_range`), no
        // queued copy reads or writes any of its bytes any more (waited for
        // above; copies queued later need `&mut self`, which the returned
        // borrow holds), and bytes of pinned memory are plain `u8`s.
        Ok(unsafe { std::slice::from_raw_parts_mut(start.add(range.start), range.len()) })
    }

    /// Records a fence after everything queued so far; [`Arena::wait`] on
    /// it waits for that work alone, not for what is queued later.
    pub fn fence(&mut self) -> Result<Fence, DeviceError> {
        let id = self.next_fence;
        let stream = self.stream.clone();
        // A fence is waited on by an executor: a blocking event puts that
        // thread to sleep instead of spinning a core (`SEQSHIM_GPU_WAIT`).
        let flags = match config::get().gpu_wait {
            GpuWait::Block => Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC),
            GpuWait::Spin => None,
        };
        let event = shielded("event record", || {
            stream
                .record_event(flags)
                .map_err(|e| err("event record failed", e))
        })?;
        self.next_fence += 1;
        for (_, fence) in self.in_flight.iter_mut().filter(|(_, f)| f.is_none()) {
            *fence = Some(id);
        }
        self.fences.push_back((id, event));
        Ok(Fence(id))
    }

    /// Records a [`Mark`] after everything queued so far. Timing events
    /// cost more than fences: for `SEQSHIM_LOG=debug` timelines only. The
    /// GPU's first mark also sets its clock's zero, waiting for this
    /// stream once.
    pub fn mark(&mut self) -> Result<Mark, DeviceError> {
        let stream = self.stream.clone();
        let timed = || {
            stream
                .record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(|e| err("event record failed", e))
        };
        self.gpu.clock.get_or_try_init(|| {
            shielded("clock event", || {
                let zero = timed()?;
                zero.synchronize()
                    .map_err(|e| err("event synchronize failed", e))?;
                Ok((zero, Instant::now()))
            })
        })?;
        Ok(Mark(shielded("event record", timed)?))
    }

    /// When the GPU reached `mark`, on the host's clock (to within the
    /// wake-up of one synchronize); waits for it. `None` if the driver
    /// cannot say.
    pub fn mark_time(&self, mark: &Mark) -> Option<Instant> {
        let (zero, at) = self.gpu.clock.get()?;
        let ms = shielded("event timing", || {
            zero.elapsed_ms(&mark.0)
                .map_err(|e| err("event timing failed", e))
        })
        .ok()?;
        let offset = std::time::Duration::from_secs_f64(f64::from(ms.abs()) / 1e3);
        if ms >= 0.0 {
            at.checked_add(offset)
        } else {
            at.checked_sub(offset)
        }
    }

    /// Waits for the work queued before `fence` (copies back into the
    /// staging buffer included).
    pub fn wait(&mut self, fence: Fence) -> Result<(), DeviceError> {
        while let Some((id, _)) = self.fences.front() {
            if *id > fence.0 {
                break;
            }
            let Some((id, event)) = self.fences.pop_front() else {
                break;
            };
            let outcome = shielded("event synchronize", || {
                event
                    .synchronize()
                    .map_err(|e| err("kernel or copy failed", e))
            });
            if let Err(e) = outcome.and_then(|()| faults::check(Op::Sync)) {
                // The stream's work cannot be trusted past a failure.
                let _ = self.synchronize();
                return Err(e);
            }
            self.in_flight.retain(|(_, f)| f.is_none_or(|f| f > id));
        }
        Ok(())
    }

    fn check_range(&self, range: &std::ops::Range<usize>) -> Result<(), DeviceError> {
        if range.start > range.end || range.end > self.host_capacity || self.staging.is_none() {
            return Err(DeviceError(format!(
                "arena range {range:?} outside the host buffer of {} bytes",
                self.host_capacity
            )));
        }
        Ok(())
    }

    /// Pinned host memory for `range`, without waiting for queued work: only
    /// for queuing more copies, which the stream orders after that work.
    fn host_range(&self, range: &std::ops::Range<usize>) -> Result<(*mut u8, usize), DeviceError> {
        self.check_range(range)?;
        let staging = self
            .staging
            .as_ref()
            .ok_or_else(|| DeviceError("arena used before reserve()".into()))?;
        let all = staging.as_slice().map_err(|e| err("pinned buffer", e))?;
        let part = &all[range.clone()];
        Ok((part.as_ptr().cast_mut(), part.len()))
    }

    /// Queues a copy of `range` of the staging buffer to the same range on
    /// the device.
    pub fn upload(&mut self, range: std::ops::Range<usize>) -> Result<(), DeviceError> {
        faults::check(Op::Copy)?;
        let (host, len) = self.host_range(&range)?;
        let dst = self.base + range.start as u64;
        let stream = self.stream.cu_stream();
        shielded("upload", || {
            // SAFETY: `host..host+len` lies inside the pinned buffer and
            // `dst..dst+len` inside the device buffer (checked by
            // `host_range`); both live until the stream is synchronized,
            // which `staging`, `reserve`, `synchronize` and `Drop` ensure
            // before either can be touched or freed.
            unsafe {
                let src = std::slice::from_raw_parts(host.cast_const(), len);
                cudarc::driver::result::memcpy_htod_async(dst, src, stream)
            }
            .map_err(|e| err("host-to-device copy failed", e))
        })?;
        self.pending = true;
        self.in_flight.push((range, None));
        Ok(())
    }

    /// Copies `src` from ordinary (pageable) host memory to device bytes
    /// `at..at + src.len()`, in this arena's stream order, and waits for
    /// it: for a large one-off input (a count's reads), where pinning a
    /// mirror of it costs more than the copy (about a second for 2 GB).
    pub fn upload_unstaged(&mut self, src: &[u8], at: usize) -> Result<(), DeviceError> {
        faults::check(Op::Copy)?;
        let dst = self.device_range(at, src.len())?;
        let stream = self.stream.cu_stream();
        shielded("upload", || {
            // SAFETY: `dst..dst+len` lies inside the device buffer
            // (`device_range`); `src` is borrowed until the stream is
            // synchronized below, before this returns.
            unsafe { cudarc::driver::result::memcpy_htod_async(dst, src, stream) }
                .map_err(|e| err("host-to-device copy failed", e))
        })?;
        self.pending = true;
        self.synchronize()
    }

    /// Copies device bytes `at..at + dst.len()` into ordinary host memory,
    /// in this arena's stream order, and waits for it.
    pub fn download_unstaged(&mut self, at: usize, dst: &mut [u8]) -> Result<(), DeviceError> {
        faults::check(Op::Copy)?;
        let src = self.device_range(at, dst.len())?;
        let stream = self.stream.cu_stream();
        shielded("download", || {
            // SAFETY: as in `upload_unstaged`: `dst` is borrowed until the
            // stream is synchronized below.
            unsafe { cudarc::driver::result::memcpy_dtoh_async(&mut *dst, src, stream) }
                .map_err(|e| err("device-to-host copy failed", e))
        })?;
        self.pending = true;
        self.synchronize()
    }

    /// The device address of `len` bytes at `at`, checked against the
    /// device buffer.
    fn device_range(&self, at: usize, len: usize) -> Result<u64, DeviceError> {
        match at.checked_add(len) {
            Some(end) if end <= self.capacity && self.device.is_some() => Ok(self.base + at as u64),
            _ => Err(DeviceError(format!(
                "arena bytes {at}..+{len} outside the device buffer of {} bytes",
                self.capacity
            ))),
        }
    }

    /// Queues a copy of `range` of device memory back into the staging
    /// buffer; read it through `staging()`, which waits for it.
    pub fn download(&mut self, range: std::ops::Range<usize>) -> Result<(), DeviceError> {
        faults::check(Op::Copy)?;
        let (host, len) = self.host_range(&range)?;
        let src = self.base + range.start as u64;
        let stream = self.stream.cu_stream();
        shielded("download", || {
            // SAFETY: as in `upload`; the host range is not handed out to
            // Rust code until the stream has been synchronized.
            unsafe {
                let dst = std::slice::from_raw_parts_mut(host, len);
                cudarc::driver::result::memcpy_dtoh_async(dst, src, stream)
            }
            .map_err(|e| err("device-to-host copy failed", e))
        })?;
        self.pending = true;
        self.in_flight.push((range, None));
        Ok(())
    }

    /// Queues `kernel` on this arena's stream. `Arg::Offset` parameters
    /// become device pointers into the arena and are bounds-checked here;
    /// what the kernel does with them is the kernel's contract.
    pub fn launch(
        &mut self,
        kernel: &Kernel,
        grid: u32,
        block: u32,
        shared_bytes: u32,
        args: &[Arg],
    ) -> Result<(), DeviceError> {
        if grid == 0 || block == 0 {
            return Err(DeviceError(format!("{}: empty launch", kernel.name)));
        }
        if self.device.is_none() {
            return Err(DeviceError("arena used before reserve()".into()));
        }
        faults::check(Op::Launch)?;
        // Materialise every pointer parameter with a stable address.
        let mut pointers: Vec<u64> = Vec::new();
        for arg in args {
            if let Arg::Offset(offset) = *arg {
                if offset > self.capacity {
                    return Err(DeviceError(format!(
                        "{}: offset {offset} outside arena",
                        kernel.name
                    )));
                }
                pointers.push(self.base + offset as u64);
            }
        }
        let stream = self.stream.clone();
        shielded("kernel launch", || {
            let mut builder = stream.launch_builder(&kernel.function);
            let mut next_pointer = pointers.iter();
            for arg in args {
                match arg {
                    Arg::Offset(_) => {
                        if let Some(p) = next_pointer.next() {
                            builder.arg(p);
                        }
                    }
                    Arg::U32(v) => {
                        builder.arg(v);
                    }
                    Arg::I32(v) => {
                        builder.arg(v);
                    }
                    Arg::U64(v) => {
                        builder.arg(v);
                    }
                    Arg::F32(v) => {
                        builder.arg(v);
                    }
                    Arg::F64(v) => {
                        builder.arg(v);
                    }
                }
            }
            let config = LaunchConfig {
                grid_dim: (grid, 1, 1),
                block_dim: (block, 1, 1),
                shared_mem_bytes: shared_bytes,
            };
            // SAFETY: the argument list is built from `args`, whose order and
            // types the calling family declares to match the kernel's C
            // signature; pointer arguments are inside this arena (checked
            // above) and the arena's buffers stay alive until the stream is
            // synchronized (see `upload`).
            unsafe { builder.launch(config) }
                .map_err(|e| err(&format!("launch of {} failed", kernel.name), e))?;
            Ok(())
        })?;
        self.pending = true;
        Ok(())
    }

    /// Waits for everything queued on this arena's stream.
    pub fn synchronize(&mut self) -> Result<(), DeviceError> {
        if !self.pending {
            return Ok(());
        }
        let outcome = shielded("stream synchronize", || {
            self.stream
                .synchronize()
                .map_err(|e| err("kernel or copy failed", e))
        });
        // Even on failure nothing further will run for this work.
        self.pending = false;
        self.in_flight.clear();
        self.fences.clear();
        outcome.and_then(|()| faults::check(Op::Sync))
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        // The buffers must outlive any copy or kernel still queued.
        let _ = self.synchronize();
        self.gpu.ledger.release(self.capacity);
        self.gpu.ledger.pinned(self.host_capacity, 0);
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::device::gpus;

    /// On a GPU machine: asking for more device memory than exists is an
    /// error, not a crash, and the arena stays usable afterwards.
    #[test]
    fn out_of_device_memory_is_an_error() {
        let Some(gpu) = gpus().first() else {
            eprintln!(
                "SKIPPED: no GPU in use ({})",
                crate::engine::report::backend_report().trim()
            );
            return;
        };
        let mut arena = gpu.arena(0);
        let too_much = gpu.info().total_memory.saturating_mul(4).max(1 << 40);
        let refused = arena.reserve(too_much).unwrap_err();
        assert!(refused.is_out_of_memory(), "{refused}");
        assert_eq!(
            arena.capacity(),
            0,
            "a refused grant leaves the arena as it was"
        );
        arena
            .reserve(1 << 20)
            .expect("a small arena after a failed one");
        arena.staging().expect("staging")[..4].copy_from_slice(&[1, 2, 3, 4]);
        arena.upload(0..4).expect("upload");
        arena.download(0..4).expect("download");
        assert_eq!(&arena.staging().expect("staging")[..4], &[1, 2, 3, 4]);
    }
}
