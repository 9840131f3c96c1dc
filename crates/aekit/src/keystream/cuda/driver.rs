//! The GPU keystream producer: a service thread that owns the GPU and
//! serves the fill requests of many security associations, and the
//! [`CudaProducer`] handle each pipeline holds.
//!
//! ## Loading
//!
//! CUDA's driver (`libcuda`) and NVRTC (`libnvrtc`) are opened at run time
//! (cudarc's dynamic loading), so a build with the `cuda` feature runs on a
//! machine with neither: [`GpuService::new`] checks for each library and a
//! device before touching them and returns
//! [`Error::GpuUnavailable`] naming what is missing. The kernel
//! (`aes_ctr.cu`) is compiled by NVRTC for the compute capability of the
//! device present, so one binary serves any GPU the driver knows.
//!
//! ## One GPU, many SAs (seed §3: "the management of the GPU as a shared
//! resource")
//!
//! Each SA's key is uploaded once into a key slot in device memory. A
//! producer's `fill` sends a request (slot, counter range, where to write)
//! to the service thread and waits for the answer. The service gathers what
//! is queued and launches *batches*: one kernel launch whose job table
//! holds a piece of the oldest request of every SA with work, in turn
//! (round robin, the same share each, at most [`GpuOptions::batch_blocks`]
//! blocks in all), then one device-to-host copy per piece, straight into
//! the requester's buffer. Long requests are cut into pieces, so that one
//! SA asking for much cannot hold the others back for more than one batch.
//!
//! A request that has waited longer than [`GpuOptions::starve_after`]
//! before any of it was launched is refused with [`Error::GpuStarved`]
//! (counted per SA in [`ServiceStats`]); its pipeline computes that range
//! inline (counted there as `failed`), and asks again for the next.
//!
//! ## Two streams
//!
//! Batches alternate between two CUDA streams, each with its own device
//! output buffer and job table, and the service keeps up to two batches in
//! flight: while one batch's copies run on the copy engine, the next
//! batch's kernel runs on the SMs. A single SA's large request is cut into
//! pieces that land in alternate batches, so even one SA gets the overlap.
//!
//! ## Page-locked buffers
//!
//! [`CudaProducer::allocate`] returns page-locked host memory
//! (`cuMemHostAlloc`, not write-combined: the packet thread reads it),
//! which the pipeline uses as its buffers; the copies then go by DMA into
//! the buffers the packet thread reads, with no staging copy.
//!
//! ## Safety of the writes into the requester's buffer
//!
//! The request carries a raw pointer to the `&mut [Block]` that `fill` was
//! given, and `fill` does not return until the service answers. The
//! service answers each request exactly once, and only when no copy into
//! its memory is pending: after the stream of every batch holding a piece
//! of it has been synchronized, or before any piece was launched
//! (starvation). On an error, and when the service thread ends for any
//! reason (a panic included), it synchronizes the whole context before the
//! answers (or their senders) are dropped.
//!
//! Rejected: a service thread per SA (many contexts' launches interleave
//! with no fairness, and a GPU with many small launches is idle between
//! them); the pipeline's own buffers moved to the service by value (the
//! producer interface fills a slice, which every producer shares); CUDA
//! graphs (the job table changes every launch).

use std::collections::{HashMap, VecDeque};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DeviceRepr, DriverError, LaunchConfig,
    PushKernelArg, ValidAsZeroBits, result, sys,
};
use cudarc::nvrtc;
use zeroize::Zeroizing;

use super::{Job, KERNEL_SOURCE, KEY_WORDS, key_words};
use crate::aes::Block;
use crate::keystream::{BlockStorage, CounterSpace, Error, KeystreamProducer};

// SAFETY: `Job` is `#[repr(C)]`, plain integers, no padding beyond its
// explicit `pad` field, and has the layout of `aek_job` (asserted in
// mod.rs), so its bytes are valid for the kernel to read.
unsafe impl DeviceRepr for Job {}
// SAFETY: all-zero bytes are a valid `Job` (integers only).
unsafe impl ValidAsZeroBits for Job {}

/// The GPU kernel's round function; see `aes_ctr.cu`. Not to be confused
/// with the FACE variants of CPU counter mode,
/// [`ctr::face::Variant`](crate::ctr::face::Variant).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuKernel {
    /// T-table rounds, the table replicated 32 times in shared memory.
    TTable,
    /// S-box lookups gathered by byte permutes, MixColumns computed.
    BytePerm,
}

/// The GPU kernel's round function under its former name.
#[deprecated(note = "renamed GpuKernel")]
pub type Variant = GpuKernel;

impl GpuKernel {
    /// Both, in a fixed order (to compare them).
    pub const ALL: [GpuKernel; 2] = [GpuKernel::TTable, GpuKernel::BytePerm];

    /// Short name, as in the kernel's entry point.
    pub fn name(self) -> &'static str {
        match self {
            GpuKernel::TTable => "ttable",
            GpuKernel::BytePerm => "byteperm",
        }
    }

    fn entry(self) -> &'static str {
        match self {
            GpuKernel::TTable => "aek_ctr_ttable",
            GpuKernel::BytePerm => "aek_ctr_byteperm",
        }
    }
}

/// How the GPU service runs.
#[derive(Clone, Copy, Debug)]
pub struct GpuOptions {
    /// The CUDA device.
    pub ordinal: usize,
    /// The kernel's round function.
    pub variant: GpuKernel,
    /// Threads per CUDA block (at most 256, the kernel's launch bound).
    pub threads: u32,
    /// Counter blocks per thread per chunk.
    pub blocks_per_thread: u32,
    /// The most counter blocks one launch serves: the size of each
    /// stream's device buffer, and the budget shared by the SAs in a batch.
    pub batch_blocks: usize,
    /// The most counter blocks of one request in one batch: longer
    /// requests are cut into pieces that land in alternate streams, so
    /// their copies overlap the next piece's kernel.
    pub piece_blocks: usize,
    /// A request not started after this long is refused (starved).
    pub starve_after: Duration,
}

impl Default for GpuOptions {
    /// Device 0, T-tables, 256 threads of 4 blocks, 2^20 blocks (16 MiB)
    /// per batch, pieces of 2^14 blocks (256 KiB), 100 ms to starvation.
    fn default() -> GpuOptions {
        GpuOptions {
            ordinal: 0,
            variant: GpuKernel::TTable,
            threads: 256,
            blocks_per_thread: 4,
            batch_blocks: 1 << 20,
            piece_blocks: 1 << 14,
            starve_after: Duration::from_millis(100),
        }
    }
}

/// What the CUDA driver says of a device.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    /// The device's name, e.g. "NVIDIA H100 80GB HBM3".
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
    /// The driver's CUDA version, e.g. 13000 for 13.0.
    pub driver_version: i32,
    /// Streaming multiprocessors.
    pub multiprocessors: i32,
    /// Device memory in bytes.
    pub memory_bytes: usize,
}

/// What the service has done, per SA slot and in all.
#[derive(Clone, Debug, Default)]
pub struct ServiceStats {
    /// Kernel launches.
    pub batches: u64,
    /// Jobs (request pieces) in those launches.
    pub jobs: u64,
    /// Per key slot: requests answered with keystream.
    pub served: Vec<u64>,
    /// Per key slot: counter blocks produced.
    pub blocks: Vec<u64>,
    /// Per key slot: requests refused as starved.
    pub starved: Vec<u64>,
    /// Requests answered with an error other than starvation.
    pub failed: u64,
}

fn cuda_err(what: &'static str) -> impl Fn(DriverError) -> Error {
    move |e| Error::GpuFailed(what, e.0 as i32)
}

/// Runs `f`, turning a panic inside the CUDA bindings (a symbol missing
/// from an old driver, say) into an error.
fn guarded<T>(what: &'static str, f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(Err(Error::GpuFailed(what, 0)))
}

/// The device's context, after checking that the driver library and a
/// device are there.
fn open_context(ordinal: usize) -> Result<Arc<CudaContext>, Error> {
    // SAFETY: only tries to open the shared library by its usual names.
    if !unsafe { sys::is_culib_present() } {
        return Err(Error::GpuUnavailable(
            "the CUDA driver library (libcuda.so) is not installed",
        ));
    }
    guarded("opening the CUDA driver", || {
        result::init().map_err(|_| Error::GpuUnavailable("a CUDA device (cuInit failed)"))?;
        let count = CudaContext::device_count()
            .map_err(|_| Error::GpuUnavailable("a CUDA device (none found)"))?;
        if ordinal as i32 >= count {
            return Err(Error::GpuUnavailable("a CUDA device (none found)"));
        }
        CudaContext::new(ordinal).map_err(cuda_err("creating the CUDA context"))
    })
}

/// What the driver says of device `ordinal`, or why there is no usable
/// GPU.
pub fn device_info(ordinal: usize) -> Result<DeviceInfo, Error> {
    let ctx = open_context(ordinal)?;
    guarded("querying the device", || {
        let mut driver_version = 0;
        // SAFETY: writes one int through a valid pointer.
        unsafe { sys::cuDriverGetVersion(&mut driver_version) }
            .result()
            .map_err(cuda_err("cuDriverGetVersion"))?;
        Ok(DeviceInfo {
            name: ctx.name().map_err(cuda_err("device name"))?,
            compute_capability: ctx
                .compute_capability()
                .map_err(cuda_err("compute capability"))?,
            driver_version,
            multiprocessors: ctx
                .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
                .map_err(cuda_err("multiprocessor count"))?,
            memory_bytes: ctx.total_mem().map_err(cuda_err("device memory"))?,
        })
    })
}

/// The kernel compiled for the device of `ctx`.
fn compile(ctx: &Arc<CudaContext>, variant: GpuKernel) -> Result<CudaFunction, Error> {
    // SAFETY: only tries to open the shared library by its usual names.
    if !unsafe { nvrtc::sys::is_culib_present() } {
        return Err(Error::GpuUnavailable(
            "the NVRTC library (libnvrtc.so) is not installed",
        ));
    }
    guarded("compiling the kernel", || {
        let (major, minor) = ctx
            .compute_capability()
            .map_err(cuda_err("compute capability"))?;
        let options = nvrtc::CompileOptions {
            options: vec![format!("--gpu-architecture=compute_{major}{minor}")],
            ..Default::default()
        };
        let ptx = nvrtc::compile_ptx_with_opts(KERNEL_SOURCE, options).map_err(|e| {
            if std::env::var_os("AEKIT_CUDA_LOG").is_some() {
                eprintln!("aekit: NVRTC failed on aes_ctr.cu: {e:?}");
            }
            Error::GpuFailed("NVRTC compiling aes_ctr.cu", 0)
        })?;
        let module = ctx
            .load_module(ptx)
            .map_err(cuda_err("loading the module"))?;
        module
            .load_function(variant.entry())
            .map_err(cuda_err("finding the kernel"))
    })
}

/// Page-locked host memory for a pipeline buffer.
struct Pinned {
    ptr: *mut Block,
    len: usize,
    ctx: Arc<CudaContext>,
}

// SAFETY: the memory is owned by this value alone (like a Box), and CUDA
// allows page-locked memory to be used and freed from any thread.
unsafe impl Send for Pinned {}

impl Pinned {
    fn new(ctx: &Arc<CudaContext>, len: usize) -> Result<Pinned, Error> {
        ctx.bind_to_thread()
            .map_err(cuda_err("binding the context"))?;
        let bytes = len.max(1) * 16;
        // SAFETY: asks the driver for `bytes` bytes of page-locked memory
        // (flags 0: cached, not write-combined); the result is checked.
        let ptr = unsafe { result::malloc_host(bytes, 0) }
            .map_err(cuda_err("cuMemHostAlloc"))?
            .cast::<Block>();
        // SAFETY: `ptr` is valid for `bytes` bytes, suitably aligned for
        // bytes; zeroing makes every block initialized.
        unsafe { core::ptr::write_bytes(ptr.cast::<u8>(), 0, bytes) };
        Ok(Pinned {
            ptr,
            len,
            ctx: ctx.clone(),
        })
    }
}

impl BlockStorage for Pinned {
    fn blocks(&self) -> &[Block] {
        // SAFETY: `ptr` holds `len` initialized blocks owned by `self`.
        unsafe { core::slice::from_raw_parts(self.ptr, self.len) }
    }
    fn blocks_mut(&mut self) -> &mut [Block] {
        // SAFETY: as above, and `&mut self` makes this the only reference.
        unsafe { core::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        // SAFETY: `ptr` came from cuMemHostAlloc and is freed once; no copy
        // into it is pending (the pipeline holds it only between fills).
        let _ = unsafe { result::free_host(self.ptr.cast()) };
    }
}

/// One fill request, as the service sees it.
struct Request {
    job: Job,
    dst: *mut Block,
    reply: SyncSender<Result<(), Error>>,
    queued: Instant,
}

// SAFETY: `dst` points into the buffer of a `fill` call that waits for the
// reply; see the module docs for why no write outlives that wait.
unsafe impl Send for Request {}

enum Message {
    /// Round keys, wiped wherever the message ends (also unsent).
    Register(Zeroizing<Vec<u32>>, SyncSender<Result<u32, Error>>),
    Release(u32),
    Fill(Request),
}

/// A shared GPU serving the keystream of many SAs; see the module docs.
/// Cloning gives another handle to the same service; the thread ends when
/// the last handle and the last producer are dropped.
#[derive(Clone)]
pub struct GpuService {
    inner: Arc<Inner>,
}

struct Inner {
    sender: Mutex<Option<Sender<Message>>>,
    worker: Mutex<Option<JoinHandle<()>>>,
    ctx: Arc<CudaContext>,
    stats: Arc<Mutex<ServiceStats>>,
    device: String,
    options: GpuOptions,
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Ok(mut sender) = self.sender.lock() {
            sender.take();
        }
        if let Some(worker) = self.worker.lock().ok().and_then(|mut w| w.take()) {
            let _ = worker.join();
        }
    }
}

impl GpuService {
    /// Opens the GPU, compiles the kernel and starts the service thread;
    /// [`Error::GpuUnavailable`] names what is missing.
    pub fn new(options: GpuOptions) -> Result<GpuService, Error> {
        let chunk = options.threads as usize * options.blocks_per_thread as usize;
        if !(1..=256).contains(&options.threads)
            || options.blocks_per_thread == 0
            || options.batch_blocks < chunk
            || options.piece_blocks == 0
        {
            return Err(Error::Unsupported(
                "GPU options: 1 to 256 threads, at least one block each, a batch of at least one chunk",
            ));
        }
        let ctx = open_context(options.ordinal)?;
        let function = compile(&ctx, options.variant)?;
        let device = ctx.name().map_err(cuda_err("device name"))?;
        let sms = ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(cuda_err("multiprocessor count"))?;
        let engine = guarded("setting up the service", || {
            Engine::new(&ctx, function, options, sms as u32)
        })?;
        let stats = Arc::new(Mutex::new(ServiceStats::default()));
        let (sender, inbox) = mpsc::channel();
        let thread_stats = stats.clone();
        let worker = std::thread::Builder::new()
            .name("aekit-gpu".into())
            .spawn(move || engine.serve(inbox, &thread_stats))
            .map_err(|_| Error::GpuFailed("starting the service thread", 0))?;
        Ok(GpuService {
            inner: Arc::new(Inner {
                sender: Mutex::new(Some(sender)),
                worker: Mutex::new(Some(worker)),
                ctx,
                stats,
                device,
                options,
            }),
        })
    }

    /// The GPU's name.
    pub fn device_name(&self) -> &str {
        &self.inner.device
    }

    /// The options it runs with.
    pub fn options(&self) -> GpuOptions {
        self.inner.options
    }

    /// What the service has done so far.
    pub fn stats(&self) -> ServiceStats {
        self.inner
            .stats
            .lock()
            .map(|s| s.clone())
            .unwrap_or_default()
    }

    fn send(&self, message: Message) -> Result<(), Error> {
        let sender = self
            .inner
            .sender
            .lock()
            .map_err(|_| Error::GpuFailed("the service has stopped", 0))?;
        sender
            .as_ref()
            .and_then(|s| s.send(message).ok())
            .ok_or(Error::GpuFailed("the service has stopped", 0))
    }
}

/// Keystream computed on the GPU for one SA (one direction): a key slot in
/// a [`GpuService`], which may serve many.
pub struct CudaProducer {
    service: GpuService,
    slot: u32,
    rounds: usize,
}

impl CudaProducer {
    /// A producer for `key` on a service of its own with default options.
    pub fn new(key: &[u8]) -> Result<CudaProducer, Error> {
        CudaProducer::on(&GpuService::new(GpuOptions::default())?, key)
    }

    /// A producer for `key` sharing `service` with others: the key is
    /// uploaded once, into a slot of its own.
    pub fn on(service: &GpuService, key: &[u8]) -> Result<CudaProducer, Error> {
        let (words, rounds) = key_words(key)?;
        let (reply, answer) = mpsc::sync_channel(1);
        service.send(Message::Register(Zeroizing::new(words), reply))?;
        let slot = answer
            .recv()
            .map_err(|_| Error::GpuFailed("the service has stopped", 0))??;
        Ok(CudaProducer {
            service: service.clone(),
            slot,
            rounds,
        })
    }

    /// The key slot in the service (the index of [`ServiceStats`]' lists).
    pub fn slot(&self) -> u32 {
        self.slot
    }
}

impl Drop for CudaProducer {
    fn drop(&mut self) {
        let _ = self.service.send(Message::Release(self.slot));
    }
}

impl KeystreamProducer for CudaProducer {
    fn name(&self) -> String {
        format!(
            "cuda/{}/{}",
            self.service.inner.options.variant.name(),
            self.service.inner.device
        )
    }

    fn fill(&mut self, space: &CounterSpace, first: u64, out: &mut [Block]) -> Result<(), Error> {
        if out.is_empty() {
            return Ok(());
        }
        let job = Job::new(space, self.rounds, self.slot, first, out.len() as u64, 0)?;
        let (reply, answer) = mpsc::sync_channel(1);
        self.service.send(Message::Fill(Request {
            job,
            dst: out.as_mut_ptr(),
            reply,
            queued: Instant::now(),
        }))?;
        // Waits until the service has finished with `out` (see the module
        // docs); a service gone answers by dropping the sender.
        answer
            .recv()
            .unwrap_or(Err(Error::GpuFailed("the service has stopped", 0)))
    }

    fn allocate(&mut self, blocks: usize) -> Result<Box<dyn BlockStorage>, Error> {
        Ok(Box::new(Pinned::new(&self.service.inner.ctx, blocks)?))
    }
}

/// Slots of keys in device memory.
const KEY_SLOTS: usize = 1024;

/// One stream with its device buffers.
struct Lane {
    stream: Arc<CudaStream>,
    jobs: CudaSlice<Job>,
    out: CudaSlice<Block>,
}

/// A piece of a request: `count` blocks from `offset` within it.
struct Piece {
    id: u64,
    offset: u64,
    count: u64,
}

/// A request being served.
struct Active {
    request: Request,
    launched: u64,
    done: u64,
}

/// A launched batch.
struct Batch {
    lane: usize,
    pieces: Vec<Piece>,
}

/// The service thread's state: everything that touches the GPU.
struct Engine {
    ctx: Arc<CudaContext>,
    function: CudaFunction,
    options: GpuOptions,
    lanes: Vec<Lane>,
    keys: CudaSlice<u32>,
    free_slots: Vec<u32>,
    /// Most CUDA blocks per job: enough to fill the GPU, looped over after.
    max_grid: u32,
    active: HashMap<u64, Active>,
    queues: HashMap<u32, VecDeque<u64>>,
    /// Slots with queued work, in round-robin order.
    order: VecDeque<u32>,
    in_flight: VecDeque<Batch>,
    next_id: u64,
    next_lane: usize,
}

/// Synchronizes the context when the service thread ends, however it ends:
/// no copy into a requester's buffer may outlive the reply senders, which
/// are dropped after this (they are declared before it).
struct SyncOnExit(Arc<CudaContext>);

impl Drop for SyncOnExit {
    fn drop(&mut self) {
        let _ = self.0.synchronize();
    }
}

impl Engine {
    fn new(
        ctx: &Arc<CudaContext>,
        function: CudaFunction,
        options: GpuOptions,
        sms: u32,
    ) -> Result<Engine, Error> {
        // SAFETY: every device buffer below is used on one stream only
        // (its lane's), and the key slots are written, then synchronized,
        // before any kernel reads them; no cross-stream tracking is needed.
        unsafe { ctx.disable_event_tracking() };
        let mut lanes = Vec::new();
        for _ in 0..2 {
            let stream = ctx.new_stream().map_err(cuda_err("creating a stream"))?;
            let jobs = stream
                .alloc_zeros::<Job>(1024)
                .map_err(cuda_err("allocating the job table"))?;
            let out = stream
                .alloc_zeros::<Block>(options.batch_blocks)
                .map_err(cuda_err("allocating the output buffer"))?;
            lanes.push(Lane { stream, jobs, out });
        }
        let keys = lanes[0]
            .stream
            .alloc_zeros::<u32>(KEY_SLOTS * KEY_WORDS)
            .map_err(cuda_err("allocating the key slots"))?;
        Ok(Engine {
            ctx: ctx.clone(),
            function,
            options,
            lanes,
            keys,
            free_slots: (0..KEY_SLOTS as u32).rev().collect(),
            max_grid: sms * 8,
            active: HashMap::new(),
            queues: HashMap::new(),
            order: VecDeque::new(),
            in_flight: VecDeque::new(),
            next_id: 0,
            next_lane: 0,
        })
    }

    fn serve(mut self, inbox: Receiver<Message>, stats: &Mutex<ServiceStats>) {
        let _sync = SyncOnExit(self.ctx.clone());
        let _ = self.ctx.bind_to_thread();
        loop {
            // Wait for work only when there is nothing to do.
            if self.order.is_empty() && self.in_flight.is_empty() {
                match inbox.recv() {
                    Ok(message) => self.take(message, stats),
                    Err(_) => break,
                }
            }
            while let Ok(message) = inbox.try_recv() {
                self.take(message, stats);
            }
            self.refuse_starved(stats);
            let launched = if self.order.is_empty() {
                false
            } else {
                match self.launch() {
                    Ok(batch) => {
                        if let Ok(mut s) = stats.lock() {
                            s.batches += 1;
                            s.jobs += batch.pieces.len() as u64;
                        }
                        self.in_flight.push_back(batch);
                        true
                    }
                    Err(e) => {
                        self.fail_everything(e, stats);
                        false
                    }
                }
            };
            // Keep two batches in flight; with nothing new to launch,
            // finish the oldest.
            if self.in_flight.len() >= 2 || (!launched && !self.in_flight.is_empty()) {
                self.complete_oldest(stats);
            }
        }
        // The channel closed: finish what is in flight.
        while !self.in_flight.is_empty() {
            self.complete_oldest(stats);
        }
    }

    fn take(&mut self, message: Message, stats: &Mutex<ServiceStats>) {
        match message {
            Message::Register(words, reply) => {
                let _ = reply.send(self.register(&words));
            }
            Message::Release(slot) => {
                // Its producer is gone, so nothing of it is queued or in
                // flight (fill waits for its answer). Wipe the key.
                let zeros = [0u32; KEY_WORDS];
                let start = slot as usize * KEY_WORDS;
                let mut view = self.keys.slice_mut(start..start + KEY_WORDS);
                let _ = self.lanes[0].stream.memcpy_htod(&zeros[..], &mut view);
                self.free_slots.push(slot);
            }
            Message::Fill(request) => {
                let slot = request.job.key;
                let id = self.next_id;
                self.next_id += 1;
                if let Ok(mut guard) = stats.lock() {
                    let s = &mut *guard;
                    let n = slot as usize + 1;
                    for list in [&mut s.served, &mut s.blocks, &mut s.starved] {
                        if list.len() < n {
                            list.resize(n, 0);
                        }
                    }
                }
                self.active.insert(
                    id,
                    Active {
                        request,
                        launched: 0,
                        done: 0,
                    },
                );
                let queue = self.queues.entry(slot).or_default();
                if queue.is_empty() {
                    self.order.push_back(slot);
                }
                queue.push_back(id);
            }
        }
    }

    fn register(&mut self, words: &[u32]) -> Result<u32, Error> {
        let slot = self
            .free_slots
            .pop()
            .ok_or(Error::Unsupported("more than 1024 SAs on one GPU service"))?;
        let start = slot as usize * KEY_WORDS;
        let stream = &self.lanes[0].stream;
        let mut view = self.keys.slice_mut(start..start + KEY_WORDS);
        // Both streams' kernels read the slot: done before any launch.
        let uploaded = stream
            .memcpy_htod(words, &mut view)
            .and_then(|()| stream.synchronize())
            .map_err(cuda_err("uploading round keys"));
        if uploaded.is_err() {
            // The slot goes back for the next key.
            self.free_slots.push(slot);
        }
        uploaded.map(|()| slot)
    }

    /// Refuses requests that waited too long before any of them started.
    fn refuse_starved(&mut self, stats: &Mutex<ServiceStats>) {
        let limit = self.options.starve_after;
        let mut starved = Vec::new();
        for queue in self.queues.values_mut() {
            queue.retain(|id| {
                let a = &self.active[id];
                let late = a.launched == 0 && a.request.queued.elapsed() > limit;
                if late {
                    starved.push(*id);
                }
                !late
            });
        }
        self.order.retain(|slot| !self.queues[slot].is_empty());
        for id in starved {
            if let Some(a) = self.active.remove(&id) {
                if let Ok(mut s) = stats.lock() {
                    s.starved[a.request.job.key as usize] += 1;
                }
                // Nothing of it was launched: no copy into its memory.
                let _ = a.request.reply.send(Err(Error::GpuStarved));
            }
        }
    }

    /// Builds and launches one batch: a fair share of the budget for the
    /// oldest request of each SA with work, in turn.
    fn launch(&mut self) -> Result<Batch, Error> {
        let lane = self.next_lane;
        self.next_lane ^= 1;
        let chunk = u64::from(self.options.threads * self.options.blocks_per_thread);
        let budget = self.options.batch_blocks as u64;
        let share = (budget / self.order.len() as u64)
            .min(self.options.piece_blocks as u64)
            .max(chunk)
            .min(budget);
        let mut jobs = Vec::new();
        let mut pieces = Vec::new();
        let (mut used, mut grid) = (0u64, 0u32);
        let rounds = self.order.len();
        for _ in 0..rounds {
            if used + chunk > budget || jobs.len() == 1024 {
                break;
            }
            let Some(slot) = self.order.pop_front() else {
                break;
            };
            let queue = self.queues.get_mut(&slot).expect("queued slot");
            let id = *queue.front().expect("non-empty queue");
            let a = self.active.get_mut(&id).expect("queued request");
            let count = (a.request.job.count - a.launched)
                .min(share)
                .min(budget - used);
            let mut job = a.request.job;
            job.first += a.launched;
            job.count = count;
            job.out = used;
            job.grid_first = grid;
            job.grid_count = count.div_ceil(chunk).min(u64::from(self.max_grid)) as u32;
            pieces.push(Piece {
                id,
                offset: a.launched,
                count,
            });
            a.launched += count;
            if a.launched == a.request.job.count {
                queue.pop_front();
            }
            if !queue.is_empty() {
                self.order.push_back(slot);
            }
            used += count;
            grid += job.grid_count;
            jobs.push(job);
        }
        let l = &mut self.lanes[lane];
        let mut table = l.jobs.slice_mut(0..jobs.len());
        l.stream
            .memcpy_htod(&jobs, &mut table)
            .map_err(cuda_err("uploading the job table"))?;
        let config = LaunchConfig {
            grid_dim: (grid, 1, 1),
            block_dim: (self.options.threads, 1, 1),
            shared_mem_bytes: 0,
        };
        let njobs = jobs.len() as u32;
        let mut launch = l.stream.launch_builder(&self.function);
        launch
            .arg(&l.jobs)
            .arg(&njobs)
            .arg(&self.keys)
            .arg(&mut l.out)
            .arg(&self.options.blocks_per_thread);
        // SAFETY: the kernel's parameters are (const aek_job *, u32,
        // const u32 *, uint4 *, u32), matched above; it reads `njobs` jobs
        // (uploaded above, in order on this stream), key slots of KEY_WORDS
        // words, and writes blocks job.out .. job.out + job.count of `out`,
        // all below `batch_blocks` by construction of the batch.
        unsafe { launch.launch(config) }.map_err(cuda_err("launching the kernel"))?;
        for (piece, job) in pieces.iter().zip(&jobs) {
            let a = &self.active[&piece.id];
            // SAFETY: `dst` points to the requester's `count`-block buffer,
            // which stays borrowed until it is answered, and is answered
            // only after this stream is synchronized (module docs); the
            // piece lies within it.
            let dst = unsafe {
                core::slice::from_raw_parts_mut(
                    a.request.dst.add(piece.offset as usize),
                    piece.count as usize,
                )
            };
            let src = l
                .out
                .slice(job.out as usize..(job.out + job.count) as usize);
            l.stream
                .memcpy_dtoh(&src, dst)
                .map_err(cuda_err("copying keystream to the host"))?;
        }
        Ok(Batch { lane, pieces })
    }

    /// Waits for the oldest batch and answers the requests it completes.
    fn complete_oldest(&mut self, stats: &Mutex<ServiceStats>) {
        let Some(batch) = self.in_flight.pop_front() else {
            return;
        };
        if let Err(e) = self.lanes[batch.lane].stream.synchronize() {
            self.in_flight.push_front(batch);
            self.fail_everything(cuda_err("running the kernel")(e), stats);
            return;
        }
        for piece in batch.pieces {
            let Some(a) = self.active.get_mut(&piece.id) else {
                continue;
            };
            a.done += piece.count;
            if a.done == a.request.job.count {
                let a = self.active.remove(&piece.id).expect("present");
                if let Ok(mut s) = stats.lock() {
                    let slot = a.request.job.key as usize;
                    s.served[slot] += 1;
                    s.blocks[slot] += a.request.job.count;
                }
                let _ = a.request.reply.send(Ok(()));
            }
        }
    }

    /// After a CUDA error: waits for the whole context (so no copy is
    /// pending), then answers every request with the error.
    fn fail_everything(&mut self, error: Error, stats: &Mutex<ServiceStats>) {
        let _ = self.ctx.synchronize();
        self.in_flight.clear();
        self.queues.clear();
        self.order.clear();
        for (_, a) in self.active.drain() {
            if let Ok(mut s) = stats.lock() {
                s.failed += 1;
            }
            let _ = a.request.reply.send(Err(error));
        }
    }
}

/// The kernel alone: AES-CTR over `blocks` counter blocks in device memory
/// (AES-128, continuous counter), `reps` launches timed by CUDA events;
/// returns the best launch in Gbit/s of keystream. Feature `measurement`:
/// for benchmarks, not part of the encryption API.
#[cfg(feature = "measurement")]
pub fn measure_kernel(
    ordinal: usize,
    variant: GpuKernel,
    threads: u32,
    blocks_per_thread: u32,
    blocks: usize,
    reps: usize,
) -> Result<f64, Error> {
    let ctx = open_context(ordinal)?;
    let function = compile(&ctx, variant)?;
    guarded("measuring the kernel", || {
        let stream = ctx.default_stream();
        let (words, rounds) = key_words(&[0x2b; 16])?;
        let keys = stream
            .clone_htod(&words)
            .map_err(cuda_err("uploading keys"))?;
        let space = CounterSpace::Continuous { salt: [1, 2, 3, 4] };
        let mut job = Job::new(&space, rounds, 0, 1 << 40, blocks as u64, 0)?;
        let chunk = u64::from(threads * blocks_per_thread);
        let sms = ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(cuda_err("multiprocessor count"))? as u64;
        job.grid_count = (blocks as u64).div_ceil(chunk).min(sms * 8) as u32;
        let jobs = stream
            .clone_htod(&vec![job])
            .map_err(cuda_err("uploading the job"))?;
        let mut out = stream
            .alloc_zeros::<Block>(blocks)
            .map_err(cuda_err("allocating output"))?;
        let config = LaunchConfig {
            grid_dim: (job.grid_count, 1, 1),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut best = f64::INFINITY;
        for _ in 0..reps + 1 {
            // Timing events (cudarc's default disables timing).
            let flags = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
            let start = ctx.new_event(flags).map_err(cuda_err("event"))?;
            let end = ctx.new_event(flags).map_err(cuda_err("event"))?;
            start.record(&stream).map_err(cuda_err("event"))?;
            let mut launch = stream.launch_builder(&function);
            let njobs = 1u32;
            launch
                .arg(&jobs)
                .arg(&njobs)
                .arg(&keys)
                .arg(&mut out)
                .arg(&blocks_per_thread);
            // SAFETY: as in `Engine::launch`: one job of `blocks` blocks
            // written at offset 0 of `out`, which holds `blocks`.
            unsafe { launch.launch(config) }.map_err(cuda_err("launching the kernel"))?;
            end.record(&stream).map_err(cuda_err("event"))?;
            end.synchronize().map_err(cuda_err("running the kernel"))?;
            let ms = start.elapsed_ms(&end).map_err(cuda_err("event"))? as f64;
            best = best.min(ms);
        }
        Ok(blocks as f64 * 128.0 / (best * 1e-3) / 1e9)
    })
}

/// Device-to-host copy bandwidth into page-locked memory: `bytes` copied
/// `reps` times; returns the best in GB/s (10^9 bytes). Feature
/// `measurement`: for benchmarks, not part of the encryption API.
#[cfg(feature = "measurement")]
pub fn measure_d2h(ordinal: usize, bytes: usize, reps: usize) -> Result<f64, Error> {
    let ctx = open_context(ordinal)?;
    guarded("measuring copies", || {
        let stream = ctx.default_stream();
        let blocks = bytes / 16;
        let src = stream
            .alloc_zeros::<Block>(blocks)
            .map_err(cuda_err("allocating"))?;
        let mut host = Pinned::new(&ctx, blocks)?;
        let mut best = f64::INFINITY;
        for _ in 0..reps + 1 {
            let t0 = Instant::now();
            stream
                .memcpy_dtoh(&src, host.blocks_mut())
                .map_err(cuda_err("copying"))?;
            stream.synchronize().map_err(cuda_err("copying"))?;
            best = best.min(t0.elapsed().as_secs_f64());
        }
        Ok((blocks * 16) as f64 / best / 1e9)
    })
}
