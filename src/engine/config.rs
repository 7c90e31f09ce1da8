//! The `SEQSHIM_*` environment, read once per process. A value we cannot
//! understand is reported (stderr and `seqshim_backend_info`) and replaced by
//! the default, so a typo never changes results or stops the host.

use once_cell::sync::OnceCell;
use std::path::PathBuf;
use std::time::Duration;

use super::device::budget::GpuMemory;
use super::device::faults::FaultPlan;

/// Which processor runs the work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The GPU when a usable one is found, the CPU otherwise.
    Auto,
    /// The CPU only.
    Cpu,
    /// The GPU; warns and uses the CPU when none is usable.
    Cuda,
}

/// How a device executor waits for its GPU (`SEQSHIM_GPU_WAIT`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuWait {
    /// Sleeps until the GPU is done: the core goes back to the host's
    /// threads (a synchronous caller computing its own call, say) for the
    /// few microseconds more each wake-up costs.
    Block,
    /// Spins on the CPU (the CUDA driver's default with one context): the
    /// quickest wake-up, one core busy for the whole of every launch.
    Spin,
}

/// Verbosity of `[seqshim]` lines on stderr, in increasing order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    Off,
    Warn,
    Info,
    Debug,
}

#[derive(Clone, Debug)]
pub struct Config {
    pub backend: Backend,
    /// Fail a call instead of falling back to the CPU (for tests).
    pub strict: bool,
    /// GPU ordinals to use; `None` means all visible.
    pub devices: Option<Vec<usize>>,
    /// CPU pool size; `None` means one thread per core.
    pub threads: Option<usize>,
    pub log: LogLevel,
    /// Explicit kernel cache folder; `None` means the XDG default.
    pub cache_dir: Option<PathBuf>,
    /// How long a device executor waits for more jobs before launching a
    /// batch that is not full.
    pub batch_linger: Duration,
    /// How synchronous calls choose between their caller's thread and a
    /// device (`SEQSHIM_ROUTING`).
    pub routing: super::scheduler::Routing,
    /// Most device memory this process takes on each GPU
    /// (`SEQSHIM_GPU_MEMORY`); `None` means the default share
    /// ([`crate::engine::device::budget::default_cap`]).
    pub gpu_memory: Option<GpuMemory>,
    /// How executors wait for their GPU (`SEQSHIM_GPU_WAIT`).
    pub gpu_wait: GpuWait,
    /// Device operations that fail on purpose (`SEQSHIM_DEBUG_FAULTS`), for
    /// tests of the CPU rescue; empty unless set.
    pub faults: FaultPlan,
    /// Every `SEQSHIM_*` variable as set, for the families' own settings
    /// ([`Config::setting`]), so that the environment is read once, here.
    pub settings: Vec<(String, String)>,
    /// One line per variable that was set to something we could not use.
    pub warnings: Vec<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            backend: Backend::Auto,
            strict: false,
            devices: None,
            threads: None,
            log: LogLevel::Warn,
            cache_dir: None,
            batch_linger: Duration::ZERO,
            routing: super::scheduler::Routing::Cost,
            gpu_memory: None,
            gpu_wait: GpuWait::Block,
            faults: FaultPlan::default(),
            settings: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

static CONFIG: OnceCell<Config> = OnceCell::new();

/// The process-wide configuration, read from the environment on first use.
pub fn get() -> &'static Config {
    CONFIG.get_or_init(|| {
        let mut config = Config::from_lookup(|name| std::env::var(name).ok());
        config.settings = std::env::vars()
            .filter(|(name, _)| name.starts_with("SEQSHIM_"))
            .collect();
        if config.log >= LogLevel::Warn {
            for warning in &config.warnings {
                eprintln!("[seqshim] warning: {warning}");
            }
        }
        config
    })
}

/// A family's own setting: how a variable's text becomes a typed value.
pub trait Setting: Sized {
    /// What a valid value looks like, for the warning about one that is not.
    const EXPECTED: &'static str;
    fn parse(text: &str) -> Option<Self>;
}

impl Setting for bool {
    const EXPECTED: &'static str = "1 or 0";
    fn parse(text: &str) -> Option<bool> {
        match text {
            "1" | "true" | "yes" => Some(true),
            "0" | "false" | "no" => Some(false),
            _ => None,
        }
    }
}

impl Setting for usize {
    const EXPECTED: &'static str = "a whole number";
    fn parse(text: &str) -> Option<usize> {
        text.parse().ok()
    }
}

impl Setting for u64 {
    const EXPECTED: &'static str = "a whole number";
    fn parse(text: &str) -> Option<u64> {
        text.parse().ok()
    }
}

impl Config {
    /// A family's own `SEQSHIM_*` setting (measurement knobs, opt-in
    /// paths): `None` when unset or empty, and also when it cannot be
    /// parsed, with one warning. Families read their settings here, never
    /// from the environment, so the whole environment is read once.
    pub fn setting<T: Setting>(&self, name: &str) -> Option<T> {
        let (_, text) = self.settings.iter().find(|(n, _)| n == name)?;
        let text = text.trim();
        if text.is_empty() {
            return None;
        }
        let parsed = T::parse(text);
        if parsed.is_none() {
            // Once per variable: families may ask on every launch.
            static WARNED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
            let mut warned = WARNED.lock().unwrap_or_else(|p| p.into_inner());
            if !warned.iter().any(|w| w == name) {
                warned.push(name.to_string());
                crate::log_warn!(
                    "ignoring {name}={text:?}: expected {}; using the default",
                    T::EXPECTED
                );
            }
        }
        parsed
    }

    /// Builds a configuration from a variable lookup (the environment in
    /// production, a map in tests).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Config {
        let mut config = Config::default();
        let mut warnings = Vec::new();
        let mut bad = |name: &str, value: &str, expected: &str| {
            warnings.push(format!(
                "ignoring {name}={value:?}: expected {expected}; using the default"
            ));
        };

        if let Some(value) = lookup("SEQSHIM_LOG") {
            match value.trim().to_ascii_lowercase().as_str() {
                "off" | "0" | "none" => config.log = LogLevel::Off,
                "warn" | "warning" => config.log = LogLevel::Warn,
                "info" | "1" => config.log = LogLevel::Info,
                "debug" | "2" => config.log = LogLevel::Debug,
                "" => {}
                _ => bad("SEQSHIM_LOG", &value, "off, warn, info or debug"),
            }
        }
        if let Some(value) = lookup("SEQSHIM_BACKEND") {
            match value.trim().to_ascii_lowercase().as_str() {
                "auto" | "" => config.backend = Backend::Auto,
                "cpu" => config.backend = Backend::Cpu,
                "cuda" | "gpu" => config.backend = Backend::Cuda,
                _ => bad("SEQSHIM_BACKEND", &value, "auto, cpu or cuda"),
            }
        }
        if let Some(value) = lookup("SEQSHIM_STRICT") {
            match value.trim() {
                "1" | "true" | "yes" => config.strict = true,
                "0" | "false" | "no" | "" => config.strict = false,
                _ => bad("SEQSHIM_STRICT", &value, "1 or 0"),
            }
        }
        if let Some(value) = lookup("SEQSHIM_DEVICES") {
            let parsed: Result<Vec<usize>, _> = value
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::parse::<usize>)
                .collect();
            match parsed {
                Ok(list) if !list.is_empty() => {
                    let mut list = list;
                    list.dedup();
                    config.devices = Some(list);
                }
                Ok(_) if value.trim().is_empty() => {}
                _ => bad(
                    "SEQSHIM_DEVICES",
                    &value,
                    "a comma-separated list of GPU ordinals such as 0,1",
                ),
            }
        }
        if let Some(value) = lookup("SEQSHIM_THREADS") {
            match value.trim().parse::<usize>() {
                Ok(n) if (1..=4096).contains(&n) => config.threads = Some(n),
                _ if value.trim().is_empty() => {}
                _ => bad("SEQSHIM_THREADS", &value, "a thread count from 1 to 4096"),
            }
        }
        if let Some(value) = lookup("SEQSHIM_CACHE_DIR") {
            if !value.trim().is_empty() {
                config.cache_dir = Some(PathBuf::from(value));
            }
        }
        if let Some(value) = lookup("SEQSHIM_BATCH_LINGER_US") {
            match value.trim().parse::<u64>() {
                Ok(us) if us <= 1_000_000 => config.batch_linger = Duration::from_micros(us),
                _ if value.trim().is_empty() => {}
                _ => bad(
                    "SEQSHIM_BATCH_LINGER_US",
                    &value,
                    "microseconds from 0 to 1000000",
                ),
            }
        }
        if let Some(value) = lookup("SEQSHIM_ROUTING") {
            match value.trim().to_ascii_lowercase().as_str() {
                "cost" | "" => config.routing = super::scheduler::Routing::Cost,
                "coalesce" => config.routing = super::scheduler::Routing::Coalesce,
                _ => bad("SEQSHIM_ROUTING", &value, "cost or coalesce"),
            }
        }
        if let Some(value) = lookup("SEQSHIM_GPU_MEMORY") {
            match GpuMemory::parse(&value) {
                Some(cap) => config.gpu_memory = Some(cap),
                None if value.trim().is_empty() => {}
                None => bad(
                    "SEQSHIM_GPU_MEMORY",
                    &value,
                    "bytes with an optional K, M, G or T suffix (e.g. 6G), or a share of the GPU such as 25%",
                ),
            }
        }
        if let Some(value) = lookup("SEQSHIM_GPU_WAIT") {
            match value.trim().to_ascii_lowercase().as_str() {
                "block" | "" => config.gpu_wait = GpuWait::Block,
                "spin" => config.gpu_wait = GpuWait::Spin,
                _ => bad("SEQSHIM_GPU_WAIT", &value, "block or spin"),
            }
        }
        if let Some(value) = lookup("SEQSHIM_DEBUG_FAULTS") {
            match FaultPlan::parse(&value) {
                Some(plan) => config.faults = plan,
                None => bad(
                    "SEQSHIM_DEBUG_FAULTS",
                    &value,
                    "rules such as launch@2, copy%5 or lost@40 (operations: open, alloc, copy, launch, sync, lost)",
                ),
            }
        }
        config.warnings = warnings;
        config
    }

    /// Where compiled kernels are cached: `SEQSHIM_CACHE_DIR`, else
    /// `$XDG_CACHE_HOME/seqshim`, else `$HOME/.cache/seqshim`.
    pub fn kernel_cache_dir(&self) -> Option<PathBuf> {
        if let Some(dir) = &self.cache_dir {
            return Some(dir.clone());
        }
        let non_empty = |name| std::env::var_os(name).filter(|v| !v.is_empty());
        if let Some(xdg) = non_empty("XDG_CACHE_HOME") {
            return Some(PathBuf::from(xdg).join("seqshim"));
        }
        non_empty("HOME").map(|home| PathBuf::from(home).join(".cache").join("seqshim"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config_of(pairs: &[(&str, &str)]) -> Config {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|name| map.get(name).cloned())
    }

    #[test]
    fn defaults_when_nothing_is_set() {
        let c = config_of(&[]);
        assert_eq!(c.backend, Backend::Auto);
        assert!(!c.strict);
        assert_eq!(c.devices, None);
        assert_eq!(c.threads, None);
        assert_eq!(c.log, LogLevel::Warn);
        assert_eq!(c.gpu_memory, None);
        assert_eq!(c.gpu_wait, GpuWait::Block);
        assert!(c.warnings.is_empty());
    }

    #[test]
    fn reads_every_variable() {
        let c = config_of(&[
            ("SEQSHIM_BACKEND", "CPU"),
            ("SEQSHIM_STRICT", "1"),
            ("SEQSHIM_DEVICES", "0, 2"),
            ("SEQSHIM_THREADS", "3"),
            ("SEQSHIM_LOG", "debug"),
            ("SEQSHIM_CACHE_DIR", "/tmp/k"),
            ("SEQSHIM_BATCH_LINGER_US", "250"),
            ("SEQSHIM_GPU_MEMORY", "6G"),
            ("SEQSHIM_GPU_WAIT", "Spin"),
        ]);
        assert_eq!(c.backend, Backend::Cpu);
        assert!(c.strict);
        assert_eq!(c.devices, Some(vec![0, 2]));
        assert_eq!(c.threads, Some(3));
        assert_eq!(c.log, LogLevel::Debug);
        assert_eq!(c.cache_dir, Some(PathBuf::from("/tmp/k")));
        assert_eq!(c.batch_linger, Duration::from_micros(250));
        assert_eq!(c.gpu_memory, Some(GpuMemory::Bytes(6 << 30)));
        assert_eq!(c.gpu_wait, GpuWait::Spin);
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        let share = config_of(&[("SEQSHIM_GPU_MEMORY", "25%")]);
        assert_eq!(share.gpu_memory, Some(GpuMemory::Percent(25.0)));
    }

    #[test]
    fn family_settings_are_typed() {
        let mut c = config_of(&[]);
        c.settings = vec![
            ("SEQSHIM_X_ON".into(), " 1 ".into()),
            ("SEQSHIM_X_COUNT".into(), "64".into()),
            ("SEQSHIM_X_BAD".into(), "lots".into()),
            ("SEQSHIM_X_EMPTY".into(), "".into()),
        ];
        assert_eq!(c.setting::<bool>("SEQSHIM_X_ON"), Some(true));
        assert_eq!(c.setting::<usize>("SEQSHIM_X_COUNT"), Some(64));
        assert_eq!(c.setting::<u64>("SEQSHIM_X_BAD"), None);
        assert_eq!(c.setting::<usize>("SEQSHIM_X_EMPTY"), None);
        assert_eq!(c.setting::<bool>("SEQSHIM_X_UNSET"), None);
    }

    #[test]
    fn bad_values_are_reported_and_ignored() {
        let c = config_of(&[
            ("SEQSHIM_BACKEND", "opencl"),
            ("SEQSHIM_THREADS", "-4"),
            ("SEQSHIM_DEVICES", "zero"),
            ("SEQSHIM_LOG", "loud"),
            ("SEQSHIM_STRICT", "maybe"),
            ("SEQSHIM_BATCH_LINGER_US", "soon"),
            ("SEQSHIM_GPU_MEMORY", "0"),
            ("SEQSHIM_GPU_WAIT", "nap"),
        ]);
        assert_eq!(c.backend, Backend::Auto);
        assert_eq!(c.threads, None);
        assert_eq!(c.devices, None);
        assert_eq!(c.log, LogLevel::Warn);
        assert!(!c.strict);
        assert_eq!(c.batch_linger, Duration::ZERO);
        assert_eq!(c.gpu_memory, None);
        assert_eq!(c.gpu_wait, GpuWait::Block);
        assert_eq!(c.warnings.len(), 8, "{:?}", c.warnings);
        assert!(c.warnings.iter().any(|w| w.contains("SEQSHIM_GPU_MEMORY")));
        assert!(c.warnings[0].contains("SEQSHIM_LOG"));
        assert!(c.warnings.iter().any(|w| w.contains("\"opencl\"")));
    }
}
