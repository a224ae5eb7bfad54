//! `seamscope setup --gpu`: the GPU build of ONNX Runtime and the NVIDIA libraries it loads,
//! fetched from PyPI like the CPU runtime, pinned and checked by sha256, into one folder.
//!
//! The packages are what `onnxruntime-gpu[cuda,cudnn]` 1.31.1 resolves to (CUDA 13, cuDNN 9),
//! plus cuBLAS, which its CUDA provider links against. The provider library finds its neighbours
//! through `$ORIGIN`, so every library goes into one flat folder and nothing touches
//! `LD_LIBRARY_PATH`.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::install::{
    InstallError, Package, RUNTIME_FILE, RUNTIME_VERSION, check_pip, download, io, replace_dir,
    sha256_file,
};

/// The folder under the data directory that holds the GPU runtime.
pub const GPU_RUNTIME_DIR: &str = "runtime-gpu";

/// Where the GPU runtime library lives under `data_dir`.
pub fn gpu_runtime_path(data_dir: &Path) -> PathBuf {
    data_dir.join(GPU_RUNTIME_DIR).join(RUNTIME_FILE)
}

/// One pinned wheel of the GPU runtime, and the libraries taken from it.
#[derive(Debug, Clone, Serialize)]
pub struct GpuWheel {
    /// The PyPI package.
    pub package: &'static str,
    /// Its pinned version.
    pub version: &'static str,
    /// The wheel file pip fetches on Linux x86-64.
    pub wheel: &'static str,
    /// The wheel's sha256 as downloaded.
    pub sha256: &'static str,
    /// The wheel's size in bytes, so the plan can say how much is fetched.
    pub bytes: u64,
    /// The folder inside the wheel whose shared libraries are taken.
    pub libraries_in: &'static str,
    /// Why it is needed.
    pub why: &'static str,
}

/// The GPU runtime's wheels, seen on this project's Linux x86-64 machines (Python 3.11).
pub const GPU_WHEELS: &[GpuWheel] = &[
    GpuWheel {
        package: "onnxruntime-gpu",
        version: RUNTIME_VERSION,
        wheel: "onnxruntime_gpu-1.31.1-cp311-cp311-manylinux_2_28_x86_64.whl",
        sha256: "e26c475fe361b2015f45b4b824bd13f0bb20204e59b62814e6f0acd5f3d491a6",
        bytes: 255_560_985,
        libraries_in: "onnxruntime/capi/",
        why: "ONNX Runtime with its CUDA execution provider",
    },
    GpuWheel {
        package: "nvidia-cuda-runtime",
        version: "13.5.37",
        wheel: "nvidia_cuda_runtime-13.5.37-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
        sha256: "df2b79a8852f10d1fef8c848489c49eebb5754051bf870202a862831412b179d",
        bytes: 2_504_024,
        libraries_in: "nvidia/cu13/lib/",
        why: "libcudart (the CUDA provider links it)",
    },
    GpuWheel {
        package: "nvidia-cublas",
        version: "13.10.0.20",
        wheel: "nvidia_cublas-13.10.0.20-py3-none-manylinux1_x86_64.manylinux_2_5_x86_64.whl",
        sha256: "dcc6d63884c53d07e267ce7e6feac17b2538cebaafec5db865736c3e28e4dc84",
        bytes: 444_289_903,
        libraries_in: "nvidia/cu13/lib/",
        why: "libcublas and libcublasLt (the CUDA provider links them)",
    },
    GpuWheel {
        package: "nvidia-curand",
        version: "10.4.5.25",
        wheel: "nvidia_curand-10.4.5.25-py3-none-manylinux_2_27_x86_64.whl",
        sha256: "22bb226a857e5888fe6b54ae465fc4371296bcff13a35f79e19691bcf454f529",
        bytes: 77_113_015,
        libraries_in: "nvidia/cu13/lib/",
        why: "libcurand (the CUDA provider links it)",
    },
    GpuWheel {
        package: "nvidia-cuda-nvrtc",
        version: "13.5.37",
        wheel: "nvidia_cuda_nvrtc-13.5.37-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl",
        sha256: "86b4d68058807988b7d9af5b44917a0601e9c337f35ccd657bfb3c759ff8d8bc",
        bytes: 58_185_930,
        libraries_in: "nvidia/cu13/lib/",
        why: "libnvrtc (onnxruntime-gpu[cuda]; cuBLAS needs it)",
    },
    GpuWheel {
        package: "nvidia-cufft",
        version: "12.5.0.14",
        wheel: "nvidia_cufft-12.5.0.14-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
        sha256: "b8be26837a5abad2b5b74f3e92dd29f622a42934b355be0961a48712cbba23ad",
        bytes: 165_072_555,
        libraries_in: "nvidia/cu13/lib/",
        why: "libcufft (onnxruntime-gpu[cuda], loaded on demand)",
    },
    GpuWheel {
        package: "nvidia-nvjitlink",
        version: "13.5.37",
        wheel: "nvidia_nvjitlink-13.5.37-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl",
        sha256: "280d7cb9649704145f074b8dbde500de04ce02d0872e066e20a83c17bcaa93eb",
        bytes: 46_642_491,
        libraries_in: "nvidia/cu13/lib/",
        why: "libnvJitLink (cuFFT needs it)",
    },
    GpuWheel {
        package: "nvidia-cudnn-cu13",
        version: "9.28.1.4",
        wheel: "nvidia_cudnn_cu13-9.28.1.4-py3-none-manylinux_2_27_x86_64.whl",
        sha256: "a54f205b1db1f2895d99f398754db1369816f0569dd459731f925635cf7b65ec",
        bytes: 516_817_937,
        libraries_in: "nvidia/cudnn/lib/",
        why: "cuDNN (onnxruntime-gpu[cudnn], loaded when the provider starts)",
    },
];

/// What `setup --gpu` would fetch and where it would put it.
#[derive(Debug, Clone, Serialize)]
pub struct GpuPlan {
    /// The folder the libraries go into.
    pub target_dir: PathBuf,
    /// The runtime library the `cuda` device loads.
    pub runtime_path: PathBuf,
    /// Whether it is installed already (then nothing is fetched).
    pub installed: bool,
    /// The wheels, in fetch order.
    pub wheels: Vec<GpuWheel>,
    /// Bytes fetched in all.
    pub download_bytes: u64,
    /// Why this platform cannot have it, when it cannot.
    pub unsupported: Option<String>,
}

/// The plan for `data_dir` on this platform.
pub fn gpu_plan(data_dir: &Path) -> GpuPlan {
    let runtime_path = gpu_runtime_path(data_dir);
    let unsupported = (!cfg!(all(target_os = "linux", target_arch = "x86_64"))).then(|| {
        "the pinned GPU wheels are for Linux x86-64 (NVIDIA publishes CUDA 13 wheels for it); on this platform point SEAMSCOPE_ORT_LIB at a GPU build of ONNX Runtime".to_string()
    });
    GpuPlan {
        target_dir: data_dir.join(GPU_RUNTIME_DIR),
        installed: runtime_path.is_file(),
        runtime_path,
        wheels: GPU_WHEELS.to_vec(),
        download_bytes: GPU_WHEELS.iter().map(|w| w.bytes).sum(),
        unsupported,
    }
}

/// Whether a file in a wheel is a shared library to take: a `.so`, `.so.N...` in the wheel's
/// library folder, leaving out the Python binding and TensorRT's provider (not installed).
fn takes(wheel: &GpuWheel, member: &str) -> Option<String> {
    let rest = member.strip_prefix(wheel.libraries_in)?;
    if rest.contains('/') {
        return None;
    }
    let is_library = rest.ends_with(".so") || rest.contains(".so.");
    let skipped = rest.contains("pybind11") || rest.contains("tensorrt");
    (is_library && !skipped).then(|| rest.to_string())
}

/// Fetch, verify and install the GPU runtime into `data_dir`, atomically: every wheel is
/// checked against its pinned hash before anything is moved into place.
pub fn install_gpu(data_dir: &Path, log: &mut dyn FnMut(&str)) -> Result<GpuPlan, InstallError> {
    let plan = gpu_plan(data_dir);
    if let Some(why) = &plan.unsupported {
        return Err(InstallError::Io {
            step: "planning the GPU runtime".into(),
            message: why.clone(),
        });
    }
    if plan.installed {
        log("GPU runtime already installed");
        return Ok(plan);
    }
    check_pip()?;
    std::fs::create_dir_all(data_dir).map_err(io(format!("creating {}", data_dir.display())))?;
    let staging = tempfile::Builder::new()
        .prefix(".setup-gpu-")
        .tempdir_in(data_dir)
        .map_err(io("creating a staging folder"))?;
    let wheels = staging.path().join("wheels");
    let libs = staging.path().join(GPU_RUNTIME_DIR);
    std::fs::create_dir_all(&libs).map_err(io("creating the GPU staging folder"))?;
    for w in &plan.wheels {
        log(&format!(
            "fetching {}=={} ({:.0} MB) from PyPI: {}",
            w.package,
            w.version,
            w.bytes as f64 / 1e6,
            w.why
        ));
        let path = download(
            &Package {
                name: w.package,
                version: w.version,
                wheel_sha256: None,
            },
            &wheels,
        )?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let actual = sha256_file(&path).map_err(io(format!("hashing {name}")))?;
        if name != w.wheel || actual != w.sha256 {
            return Err(InstallError::HashMismatch {
                file: name,
                actual,
                expected: format!("{} with sha256 {}", w.wheel, w.sha256),
            });
        }
        extract_libraries(&path, w, &libs)?;
        // The wheels are large: each goes as soon as its libraries are out.
        std::fs::remove_file(&path).map_err(io(format!("removing {name}")))?;
    }
    let versioned = format!("libonnxruntime.so.{RUNTIME_VERSION}");
    std::fs::rename(libs.join(&versioned), libs.join(RUNTIME_FILE))
        .map_err(io(format!("naming {versioned} {RUNTIME_FILE}")))?;
    replace_dir(&libs, &plan.target_dir)?;
    log(&format!(
        "GPU runtime installed in {}",
        plan.target_dir.display()
    ));
    Ok(GpuPlan {
        installed: true,
        ..plan
    })
}

/// Stream every library `wheel` provides out of the archive at `path` into `dir`.
fn extract_libraries(path: &Path, wheel: &GpuWheel, dir: &Path) -> Result<(), InstallError> {
    let zip_error = |e: zip::result::ZipError| InstallError::Io {
        step: format!("reading {}", wheel.wheel),
        message: e.to_string(),
    };
    let file = std::fs::File::open(path).map_err(io(format!("opening {}", wheel.wheel)))?;
    let mut zip = zip::ZipArchive::new(file).map_err(zip_error)?;
    let mut taken = 0;
    for i in 0..zip.len() {
        let mut member = zip.by_index(i).map_err(zip_error)?;
        let Some(name) = takes(wheel, member.name()) else {
            continue;
        };
        let mut out =
            std::fs::File::create(dir.join(&name)).map_err(io(format!("writing {name}")))?;
        std::io::copy(&mut member, &mut out).map_err(io(format!("extracting {name}")))?;
        taken += 1;
    }
    if taken == 0 {
        return Err(InstallError::MissingMember {
            archive: wheel.wheel.to_string(),
            member: format!("shared libraries under {}", wheel.libraries_in),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_pins_every_wheel_and_says_what_it_costs() {
        let plan = gpu_plan(Path::new("/data"));
        assert_eq!(plan.target_dir, Path::new("/data/runtime-gpu"));
        assert_eq!(
            plan.runtime_path,
            Path::new("/data/runtime-gpu").join(RUNTIME_FILE)
        );
        assert!(!plan.installed);
        assert_eq!(plan.wheels[0].package, "onnxruntime-gpu");
        assert_eq!(plan.wheels[0].version, "1.31.1");
        for w in &plan.wheels {
            assert_eq!(w.sha256.len(), 64, "{}", w.package);
            assert!(
                w.wheel.ends_with(".whl") && w.wheel.contains(w.version),
                "{}",
                w.wheel
            );
        }
        assert!((1_500_000_000..1_700_000_000).contains(&plan.download_bytes));
    }

    #[test]
    fn only_the_wheels_own_libraries_are_taken() {
        let ort = &GPU_WHEELS[0];
        assert_eq!(
            takes(ort, "onnxruntime/capi/libonnxruntime_providers_cuda.so").as_deref(),
            Some("libonnxruntime_providers_cuda.so")
        );
        assert!(takes(ort, "onnxruntime/capi/libonnxruntime.so.1.31.1").is_some());
        assert!(takes(ort, "onnxruntime/capi/libonnxruntime_providers_tensorrt.so").is_none());
        assert!(
            takes(
                ort,
                "onnxruntime/capi/onnxruntime_pybind11_state.cpython-311-x86_64-linux-gnu.so"
            )
            .is_none()
        );
        assert!(takes(ort, "onnxruntime/capi/_pybind_state.py").is_none());
        let cublas = &GPU_WHEELS[2];
        assert!(takes(cublas, "nvidia/cu13/lib/libcublasLt.so.13").is_some());
        assert!(takes(cublas, "nvidia/cu13/include/cublas.h").is_none());
    }
}
