//! Where the model runs: the `device` setting, what `auto` picks, and why.
//!
//! A GPU needs three things: the GPU build of ONNX Runtime (`seamscope setup --gpu` installs it
//! beside the CPU one), an NVIDIA driver (`libcuda.so.1`), and a GPU the CUDA provider accepts.
//! The choice is made before the runtime is loaded, because a process holds one runtime.

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use crate::spec::Device;

/// The model batch on a GPU: a GPU is fastest with far larger batches than the CPU's 16.
pub const CUDA_BATCH: usize = 64;

/// The NVIDIA driver's library, which the CUDA provider needs.
#[cfg(not(target_os = "windows"))]
pub const DRIVER_LIBRARY: &str = "libcuda.so.1";
/// The NVIDIA driver's library, which the CUDA provider needs.
#[cfg(target_os = "windows")]
pub const DRIVER_LIBRARY: &str = "nvcuda.dll";

/// What the machine offers, found before anything is loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceProbe {
    /// The CPU runtime library (the settings' `runtime_path`).
    pub cpu_runtime: PathBuf,
    /// The GPU runtime library, when one is installed (or the user's own runtime, which may be a
    /// GPU build).
    pub gpu_runtime: Option<PathBuf>,
    /// Whether the driver loads, or why not.
    pub driver: Result<(), String>,
}

impl DeviceProbe {
    /// Look at this machine: `gpu_runtime` is where setup puts the GPU build; `user_runtime`
    /// says whether the runtime path was set by the user (then it is the one to use on any
    /// device).
    pub fn of_machine(cpu_runtime: &Path, gpu_runtime: &Path, user_runtime: bool) -> DeviceProbe {
        let gpu = if user_runtime {
            Some(cpu_runtime.to_path_buf())
        } else {
            gpu_runtime.is_file().then(|| gpu_runtime.to_path_buf())
        };
        DeviceProbe {
            cpu_runtime: cpu_runtime.to_path_buf(),
            gpu_runtime: gpu,
            driver: driver_loads(),
        }
    }
}

/// Whether the NVIDIA driver library loads in this process.
fn driver_loads() -> Result<(), String> {
    // SAFETY: loading the NVIDIA driver library runs its initialisers, which are safe to run;
    // nothing is called through it here, and it is unloaded when `lib` drops.
    match unsafe { libloading::Library::new(DRIVER_LIBRARY) } {
        Ok(lib) => {
            drop(lib);
            Ok(())
        }
        Err(e) => Err(format!("{DRIVER_LIBRARY} does not load ({e})")),
    }
}

/// What to load and how to run it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DevicePlan {
    /// The CPU, with this runtime; `note` says why when `auto` did not pick the GPU.
    Cpu {
        /// The runtime library.
        runtime: PathBuf,
        /// Why the CPU, when the GPU was asked for by `auto`.
        note: Option<String>,
    },
    /// The CUDA provider, with this runtime.
    Cuda {
        /// The runtime library (a GPU build).
        runtime: PathBuf,
        /// Whether a failure to start the CUDA provider falls back to the CPU (`auto`) or is an
        /// error (`cuda`).
        fallback: bool,
    },
}

impl DevicePlan {
    /// The runtime library to load.
    pub fn runtime(&self) -> &Path {
        match self {
            DevicePlan::Cpu { runtime, .. } | DevicePlan::Cuda { runtime, .. } => runtime,
        }
    }
}

/// Why the GPU asked for cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    /// `cuda` without the GPU runtime.
    #[error(
        "device cuda needs the GPU build of ONNX Runtime: run `seamscope setup --gpu` (about 1.6 GB from PyPI, 2.5 GB installed), or choose --device cpu or auto"
    )]
    NoGpuRuntime,
    /// `cuda` without a driver.
    #[error(
        "device cuda needs an NVIDIA driver, and {0}: install the driver, or choose --device cpu or auto"
    )]
    NoDriver(String),
    /// The CUDA provider would not start.
    #[error(
        "device cuda: the CUDA provider would not start ({0}); choose --device cpu or auto to run on the CPU"
    )]
    ProviderFailed(String),
}

/// Decide where to run from what was asked and what the machine offers.
pub fn plan_device(requested: Device, probe: &DeviceProbe) -> Result<DevicePlan, DeviceError> {
    let cpu = |note: Option<String>| DevicePlan::Cpu {
        runtime: probe.cpu_runtime.clone(),
        note,
    };
    match requested {
        Device::Cpu => Ok(cpu(None)),
        Device::Cuda => {
            let runtime = probe.gpu_runtime.clone().ok_or(DeviceError::NoGpuRuntime)?;
            probe.driver.clone().map_err(DeviceError::NoDriver)?;
            Ok(DevicePlan::Cuda {
                runtime,
                fallback: false,
            })
        }
        Device::Auto => match (&probe.gpu_runtime, &probe.driver) {
            (None, _) => Ok(cpu(Some(
                "no GPU runtime installed (`seamscope setup --gpu` adds one)".into(),
            ))),
            (Some(_), Err(why)) => Ok(cpu(Some(format!("no NVIDIA driver: {why}")))),
            (Some(runtime), Ok(())) => Ok(DevicePlan::Cuda {
                runtime: runtime.clone(),
                fallback: true,
            }),
        },
    }
}

/// Where the model ended up running, and why, for reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeviceReport {
    /// What was asked for.
    pub requested: Device,
    /// `cpu` or `cuda`.
    pub used: Device,
    /// Why the CPU when `auto` (or a failed GPU start) chose it; `None` otherwise.
    pub note: Option<String>,
}

impl DeviceReport {
    /// One line for a person: `cpu`, `cuda`, or `cpu (auto: no NVIDIA driver: ...)`.
    pub fn line(&self) -> String {
        match &self.note {
            Some(note) => format!(
                "{} ({}: {note})",
                self.used.as_str(),
                self.requested.as_str()
            ),
            None => self.used.as_str().to_string(),
        }
    }

    /// Whether a person should be told: the GPU was there to try and did not start, or a GPU
    /// was asked for. A CPU-only machine running `auto` is the ordinary case and says nothing.
    pub fn worth_saying(&self) -> bool {
        self.note
            .as_deref()
            .is_some_and(|n| !n.starts_with("no GPU runtime installed"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(gpu: bool, driver: bool) -> DeviceProbe {
        DeviceProbe {
            cpu_runtime: "/data/runtime/libonnxruntime.so".into(),
            gpu_runtime: gpu.then(|| "/data/runtime-gpu/libonnxruntime.so".into()),
            driver: if driver {
                Ok(())
            } else {
                Err("libcuda.so.1 does not load (not found)".into())
            },
        }
    }

    #[test]
    fn cpu_is_always_the_cpu_runtime() {
        for (gpu, driver) in [(false, false), (true, true)] {
            let plan = plan_device(Device::Cpu, &probe(gpu, driver)).unwrap();
            assert_eq!(
                plan,
                DevicePlan::Cpu {
                    runtime: "/data/runtime/libonnxruntime.so".into(),
                    note: None
                }
            );
        }
    }

    #[test]
    fn auto_falls_back_to_the_cpu_saying_why() {
        let no_runtime = plan_device(Device::Auto, &probe(false, true)).unwrap();
        let DevicePlan::Cpu { note: Some(n), .. } = &no_runtime else {
            panic!("{no_runtime:?}")
        };
        assert!(n.contains("setup --gpu"), "{n}");
        let no_driver = plan_device(Device::Auto, &probe(true, false)).unwrap();
        let DevicePlan::Cpu { runtime, note } = &no_driver else {
            panic!("{no_driver:?}")
        };
        assert_eq!(runtime, Path::new("/data/runtime/libonnxruntime.so"));
        assert!(note.as_deref().is_some_and(|n| n.contains("libcuda.so.1")));
        assert_eq!(
            plan_device(Device::Auto, &probe(true, true)).unwrap(),
            DevicePlan::Cuda {
                runtime: "/data/runtime-gpu/libonnxruntime.so".into(),
                fallback: true
            }
        );
    }

    #[test]
    fn cuda_asked_for_is_an_error_when_it_cannot_run() {
        assert_eq!(
            plan_device(Device::Cuda, &probe(false, true)),
            Err(DeviceError::NoGpuRuntime)
        );
        let err = plan_device(Device::Cuda, &probe(true, false)).unwrap_err();
        assert!(err.to_string().contains("NVIDIA driver") && err.to_string().contains("libcuda"));
        assert!(matches!(
            plan_device(Device::Cuda, &probe(true, true)),
            Ok(DevicePlan::Cuda {
                fallback: false,
                ..
            })
        ));
    }

    #[test]
    fn only_a_surprising_fallback_is_worth_a_line() {
        let report = |note: Option<&str>| DeviceReport {
            requested: Device::Auto,
            used: Device::Cpu,
            note: note.map(str::to_string),
        };
        assert!(!report(None).worth_saying());
        assert!(
            !report(Some(
                "no GPU runtime installed (`seamscope setup --gpu` adds one)"
            ))
            .worth_saying()
        );
        let failed = report(Some("the CUDA provider would not start: no device"));
        assert!(failed.worth_saying());
        assert_eq!(
            failed.line(),
            "cpu (auto: the CUDA provider would not start: no device)"
        );
    }
}
