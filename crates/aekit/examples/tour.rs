//! A tour of aekit: the strategies this CPU runs, the ones chosen by
//! default, and one message sealed and opened by every available pair.
//!
//!     cargo run --release --example tour

use aekit::{AesGcm, aes, ghash};

fn main() -> Result<(), aekit::Error> {
    println!("AES strategies:");
    for s in aes::Strategy::ALL {
        print_strategy(
            s.name(),
            s.is_available(),
            s.is_constant_time(),
            s.storage_bytes(),
        );
    }
    println!("GHASH strategies:");
    for s in ghash::Strategy::ALL {
        print_strategy(
            s.name(),
            s.is_available(),
            s.is_constant_time(),
            s.storage_bytes(),
        );
    }
    println!("fused kernels:");
    for f in aekit::gcm::Fused::ALL {
        let on = if f.is_available() {
            "available"
        } else {
            "unavailable"
        };
        println!("  {:<12} {on}", f.name());
    }
    println!("default: {}\n", AesGcm::new(&[0; 16])?.implementation());

    let key = [0x42u8; 32];
    let (iv, aad, message) = (b"unique nonce", b"header", b"attack at dawn");
    let reference = AesGcm::new(&key)?.encrypt(iv, aad, message, 16)?;
    for f in aekit::gcm::Fused::ALL
        .into_iter()
        .filter(|f| f.is_available())
    {
        let sealed = AesGcm::fused(&key, f)?.encrypt(iv, aad, message, 16)?;
        println!(
            "{:>21} tag {}  {}",
            f.name(),
            hex(&sealed[message.len()..]),
            if sealed == reference {
                "ok"
            } else {
                "MISMATCH"
            }
        );
    }
    for a in aes::Strategy::ALL.into_iter().filter(|s| s.is_available()) {
        for g in ghash::Strategy::ALL
            .into_iter()
            .filter(|s| s.is_available())
        {
            let gcm = AesGcm::with(&key, a, g)?;
            let sealed = gcm.encrypt(iv, aad, message, 16)?;
            let opened = gcm.decrypt(iv, aad, &sealed, 16)?;
            let same = sealed == reference && opened == message;
            println!(
                "({:>8}, {:>9}) tag {}  {}",
                a.name(),
                g.name(),
                hex(&sealed[message.len()..]),
                if same { "ok" } else { "MISMATCH" }
            );
        }
    }
    Ok(())
}

fn print_strategy(name: &str, available: bool, constant_time: bool, storage: usize) {
    println!(
        "  {name:<10} {:<13} {:<17} {storage:>6} B per key",
        if available {
            "available"
        } else {
            "unavailable"
        },
        if constant_time {
            "constant-time"
        } else {
            "NOT constant-time"
        },
    );
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
