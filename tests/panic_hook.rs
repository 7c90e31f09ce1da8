//! Panics in seqshim's code reach the host's stderr as one `[seqshim]`
//! line, not as Rust's panic message, while a Rust host's own panics still
//! go to the host's own hook. Runs itself as a child process so that the
//! child's stderr can be read.

use seqshim::engine::scheduler::{Job, run_on_cpu};

const CHILD: &str = "SEQSHIM_PANIC_HOOK_CHILD";

struct Boom;

impl Job for Boom {
    type Output = ();
    fn run_cpu(&self) {
        panic!("boom in a job");
    }
}

#[test]
fn panics_in_our_code_are_one_line_and_the_hosts_hook_keeps_the_rest() {
    if std::env::var_os(CHILD).is_some() {
        return child();
    }
    let exe = std::env::current_exe().expect("test binary");
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            "panics_in_our_code_are_one_line_and_the_hosts_hook_keeps_the_rest",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .env("SEQSHIM_THREADS", "2")
        .env("SEQSHIM_LOG", "warn")
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("run the child");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "child failed:\n{stderr}");
    let ours: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("[seqshim] warning: internal error (contained): boom in a job"))
        .collect();
    assert_eq!(ours.len(), 3, "one line per panicking job:\n{stderr}");
    assert!(
        !stderr.contains("panicked at") && !stderr.contains("stack backtrace"),
        "Rust's panic text reached stderr:\n{stderr}"
    );
    assert!(
        !stderr.contains("HOST HOOK: boom"),
        "the host's hook saw our panic:\n{stderr}"
    );
    assert!(
        stderr.contains("HOST HOOK: the host's own panic"),
        "the host's hook missed its own panic:\n{stderr}"
    );
}

fn child() {
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .copied()
            .unwrap_or("?");
        eprintln!("HOST HOOK: {message}");
    }));
    let results = run_on_cpu(vec![Boom, Boom, Boom]);
    assert!(results.iter().all(Result::is_err), "{results:?}");
    let caught = std::panic::catch_unwind(|| panic!("the host's own panic"));
    assert!(caught.is_err());
}
