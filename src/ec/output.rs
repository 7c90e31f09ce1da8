//! All-or-nothing output: files are written next to their destination under a
//! temporary name and renamed only after every output is complete, so a
//! failure never leaves a half-written result behind.
//!
//! gzip: an input that starts with the gzip magic bytes is decompressed
//! (multi-member files included), and an output whose name ends in `.gz` is
//! gzip-compressed. Only the compression layer comes from a crate (`flate2`);
//! the records are still parsed by the family's own readers, because exact-v1
//! must reproduce v1's `GetSeq` quirks byte for byte (spec §4.2: one sequence
//! line per record, 59-byte names, a lost last record without a final newline)
//! and default mode keeps headers byte-exact and reports `file:line` errors.

use std::fs;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;

use super::error::EcError;

fn temp_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(format!(".tmp-ec-{}", std::process::id()));
    path.with_file_name(name)
}

/// Whether `path` names a gzip output (`*.gz`).
pub fn is_gzip_name(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"))
}

/// Where one output's bytes go: its temporary file, gzip-compressed or not,
/// flushed to the disk in the background as it grows.
struct Sink {
    writer: Writer,
    sync: BackgroundSync,
}

enum Writer {
    Plain(BufWriter<fs::File>),
    Gzip(GzEncoder<BufWriter<fs::File>>),
}

impl Sink {
    fn create(path: &Path, tmp: &Path) -> Result<Self, EcError> {
        let file = fs::File::create(tmp).map_err(|e| EcError::io(path, e))?;
        let sync = BackgroundSync::start(&file);
        let file = BufWriter::with_capacity(1 << 20, file);
        let writer = if is_gzip_name(path) {
            Writer::Gzip(GzEncoder::new(file, Compression::new(3)))
        } else {
            Writer::Plain(file)
        };
        Ok(Sink { writer, sync })
    }

    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match &mut self.writer {
            Writer::Plain(w) => w.write_all(bytes)?,
            Writer::Gzip(w) => w.write_all(bytes)?,
        }
        self.sync.wrote(bytes.len());
        Ok(())
    }

    /// Flushes everything to the disk.
    fn finish(self) -> std::io::Result<()> {
        let buffered = match self.writer {
            Writer::Plain(w) => w,
            Writer::Gzip(w) => w.finish()?,
        };
        let file = buffered.into_inner().map_err(|e| e.into_error())?;
        self.sync.stop()?;
        file.sync_all()
    }
}

/// Bytes written between two background flushes.
const SYNC_EVERY: usize = 256 << 20;

/// Flushes a file's data to the disk on a helper thread every
/// [`SYNC_EVERY`] bytes written, so that the sync before the file is
/// renamed into place waits for the last part only, not for gigabytes.
/// The thread starts at the first flush (a small file never has one);
/// without it (none could be started) the final sync does it all.
struct BackgroundSync {
    /// A handle for the helper thread, until it starts.
    file: Option<fs::File>,
    kick: Option<std::sync::mpsc::SyncSender<()>>,
    thread: Option<std::thread::JoinHandle<std::io::Result<()>>>,
    unsynced: usize,
}

impl BackgroundSync {
    fn start(file: &fs::File) -> Self {
        BackgroundSync {
            file: file.try_clone().ok(),
            kick: None,
            thread: None,
            unsynced: 0,
        }
    }

    fn wrote(&mut self, bytes: usize) {
        self.unsynced += bytes;
        if self.unsynced < SYNC_EVERY {
            return;
        }
        self.unsynced = 0;
        if let Some(file) = self.file.take() {
            let (kick, kicked) = std::sync::mpsc::sync_channel::<()>(1);
            let thread = std::thread::Builder::new()
                .name("seqshim-ec-sync".into())
                .spawn(move || kicked.iter().try_for_each(|()| file.sync_data()));
            if let Ok(thread) = thread {
                self.kick = Some(kick);
                self.thread = Some(thread);
            }
        }
        // A flush already waiting to start covers this one: skip it.
        if let Some(kick) = &self.kick {
            let _ = kick.try_send(());
        }
    }

    /// Waits for the flush in progress; returns its error, if any.
    fn stop(mut self) -> std::io::Result<()> {
        drop(self.kick.take());
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(std::io::Error::other("the background flush failed")),
            None => Ok(()),
        }
    }
}

/// Output files written under temporary names next to their destinations
/// and renamed together by [`AtomicOutputs::commit`]; dropped uncommitted
/// (an error on the way), they are removed.
pub struct AtomicOutputs {
    outputs: Vec<(PathBuf, PathBuf, Option<Sink>)>,
}

impl AtomicOutputs {
    pub fn create(paths: &[&Path]) -> Result<Self, EcError> {
        let mut outputs = AtomicOutputs {
            outputs: Vec::new(),
        };
        for &path in paths {
            let tmp = temp_path(path);
            let sink = Sink::create(path, &tmp);
            // Pushed before checking, so that a created file is removed.
            outputs.outputs.push((path.to_path_buf(), tmp, None));
            outputs.outputs.last_mut().expect("pushed").2 = Some(sink?);
        }
        Ok(outputs)
    }

    /// How many outputs are open.
    pub fn files(&self) -> usize {
        self.outputs.len()
    }

    /// Appends `bytes` to output `index` (in `create`'s order).
    pub fn write(&mut self, index: usize, bytes: &[u8]) -> Result<(), EcError> {
        let (path, _, sink) = &mut self.outputs[index];
        let sink = sink.as_mut().expect("open until commit");
        sink.write_all(bytes).map_err(|e| EcError::io(&*path, e))
    }

    /// Completes every file, then renames them all into place.
    pub fn commit(mut self) -> Result<(), EcError> {
        for (path, _, sink) in &mut self.outputs {
            if let Some(sink) = sink.take() {
                sink.finish().map_err(|e| EcError::io(&*path, e))?;
            }
        }
        for (path, tmp, _) in &self.outputs {
            fs::rename(tmp, path).map_err(|e| EcError::io(path, e))?;
        }
        self.outputs.clear();
        Ok(())
    }
}

impl Drop for AtomicOutputs {
    fn drop(&mut self) {
        for (_, tmp, sink) in self.outputs.drain(..) {
            drop(sink);
            let _ = fs::remove_file(tmp);
        }
    }
}

/// Writes each `(path, bytes)` to a temporary file (gzip-compressed for
/// `*.gz` paths), then renames them all. On error every temporary file is
/// removed.
pub fn write_all_atomically(outputs: &[(&Path, &[u8])]) -> Result<(), EcError> {
    let paths: Vec<&Path> = outputs.iter().map(|&(p, _)| p).collect();
    let mut files = AtomicOutputs::create(&paths)?;
    for (i, &(_, bytes)) in outputs.iter().enumerate() {
        files.write(i, bytes)?;
    }
    files.commit()
}

/// Opens an input file for reading, decompressing it when it starts with
/// the gzip magic bytes (multi-member files included).
pub fn open_input(path: &Path) -> Result<Box<dyn Read + Send>, EcError> {
    let file = fs::File::open(path).map_err(|e| EcError::io(path, e))?;
    let mut file = BufReader::with_capacity(1 << 20, file);
    let gzip = file
        .fill_buf()
        .map_err(|e| EcError::io(path, e))?
        .starts_with(&[0x1f, 0x8b]);
    Ok(if gzip {
        Box::new(MultiGzDecoder::new(file))
    } else {
        Box::new(file)
    })
}

/// Reads a whole input file, decompressing gzip, naming the file in errors.
pub fn read_input(path: &Path) -> Result<Vec<u8>, EcError> {
    let mut data = Vec::new();
    open_input(path)?
        .read_to_end(&mut data)
        .map_err(|e| EcError::io(path, e))?;
    Ok(data)
}
